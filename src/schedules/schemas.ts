// Request and response shapes of the schedule operations (docs/schedules.md).
import { Type, type Static } from 'typebox';
import { Code, Id } from '../primitives.ts';
import { dateText } from '../calendar/calendar.ts';
import { named } from '../http/openapi.ts';

export const ScheduleId = Type.Integer({ ...Id, description: 'from get-schedules' });

export const MakeScheduleData = Type.Object(
  {
    serviceCode: Code,
    batchCode: Code,
    startDate: dateText("the first day of the schedule's first period; every period is counted from it"),
    autoProcess: Type.Optional(Type.Boolean({ description: 'approve and process each term when its period closes (default false: it waits for approval once validated)' })),
    estimateMissing: Type.Optional(Type.Boolean({ description: 'validate with estimateMissing: missing readings estimated from history and recorded (default false)' })),
  },
  { additionalProperties: false },
);
export type MakeScheduleData = Static<typeof MakeScheduleData>;

export const ScheduleRef = Type.Object({ scheduleID: ScheduleId }, { additionalProperties: false });

export const GetSchedulesData = Type.Object(
  {
    scheduleID: Type.Optional(ScheduleId),
    serviceCode: Type.Optional(Code),
    batchCode: Type.Optional(Code),
    status: Type.Optional(Type.Enum(['active', 'paused'] as const)),
  },
  { additionalProperties: false },
);

const PeriodRef = Type.Object({
  billingPeriodID: Type.Integer({ description: 'yyyymm of the period' }),
  startDate: Type.String({ description: 'dd/mm/yyyy' }),
  endDate: Type.String({ description: 'dd/mm/yyyy' }),
});

export const ScheduleRecord = named(
  'Schedule',
  Type.Object({
    scheduleID: Type.Integer(),
    serviceCode: Type.String(),
    batchCode: Type.String(),
    billingCycle: Type.Integer({ description: "the template's billingCycle when the schedule was made: 1 Monthly, 2 Bi-monthly, 3 Quarterly, 4 Half-yearly, 5 Yearly" }),
    cycle: Type.String(),
    cycleMonths: Type.Integer(),
    startDate: Type.String({ description: 'dd/mm/yyyy, the first day of period 0' }),
    autoProcess: Type.Boolean(),
    estimateMissing: Type.Boolean(),
    status: Type.Enum(['active', 'paused'] as const),
    nextPeriod: Type.Object(PeriodRef.properties, { description: 'the next period whose term the schedule makes, on its first day' }),
    createdAt: Type.String(),
    createdBy: Type.String(),
    modifiedAt: Type.String(),
    modifiedBy: Type.String(),
  }),
);
export type ScheduleRecord = Static<typeof ScheduleRecord>;

export const GetScheduleRunsData = Type.Object(
  {
    scheduleID: Type.Optional(ScheduleId),
    outcome: Type.Optional(Type.Enum(['done', 'error'] as const)),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647, default: 0 })),
  },
  { additionalProperties: false },
);

export const ScheduleRunRecord = named(
  'ScheduleRun',
  Type.Object({
    runID: Type.Integer(),
    scheduleID: Type.Integer(),
    runDate: Type.String({ description: "dd/mm/yyyy, the app's day the run was for" }),
    step: Type.Enum(['make-term', 'load-subscriptions', 'validate-term', 'approve-term', 'process-term', 'close'] as const),
    outcome: Type.Enum(['done', 'error'] as const),
    billingPeriodID: Type.Integer(),
    termID: Type.Union([Type.Integer(), Type.Null()]),
    message: Type.String({ description: 'what the step did, or why it was refused' }),
    errorCode: Type.Union([Type.String(), Type.Null()], { description: 'the refusal\'s error code (INVALID_STATE, CONFLICT, ...)' }),
    at: Type.String({ description: "yyyy-mm-dd hh:mm:ss in the app's time zone (real time)" }),
  }),
);
export type ScheduleRunRecord = Static<typeof ScheduleRunRecord>;
