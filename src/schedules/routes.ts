import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { operation, requestSchema, type Services } from '../http/operation.ts';
import { Paging } from '../primitives.ts';
import { GetScheduleRunsData, GetSchedulesData, MakeScheduleData, ScheduleRecord, ScheduleRef, ScheduleRunRecord } from './schemas.ts';
import { getScheduleRuns, getSchedules, makeSchedule, pauseSchedule, resumeSchedule, runSchedulesNow } from './schedules.ts';

const TAG = 'bill-cycle schedules';

export async function scheduleRoutes(app: FastifyInstance, services: Services): Promise<void> {
  operation(app, services, {
    path: '/billing/schedules/make-schedule',
    role: 'biller',
    tag: TAG,
    summary: 'Create a bill-cycle schedule',
    description:
      "One schedule per template and batch (CONFLICT), on the template's billingCycle: each period's term is made on the period's first day and loaded and validated the day after its last, then left for approval or, with autoProcess, approved and processed. Periods are counted from startDate; the first term is the one of the period holding the app's today (or the first period, when startDate is ahead).",
    idempotent: true,
    // product.md: a create answers data {} and names what it made in a header only (it
    // answered data.schedule, which a client written to the contract does not expect).
    headers: { 'X-Billrun-Schedule-Id': 'the new scheduleID (get-schedules with it answers the schedule and its next period)' },
    body: requestSchema({ method: 'Create', action: 'Create Schedule' }, { data: MakeScheduleData }),
    data: Type.Object({}),
    handler: async (body, ctx) => {
      const made = await makeSchedule(ctx.db, ctx.caller, body.data);
      ctx.reply.header('x-billrun-schedule-id', String(made.scheduleID));
      return {};
    },
  });

  operation(app, services, {
    path: '/billing/schedules/get-schedules',
    role: 'viewer',
    tag: TAG,
    summary: 'List bill-cycle schedules',
    description: 'The schedules of the app, filtered by any of the data fields, each with its next period.',
    body: requestSchema({ method: 'Retrieve', action: 'Retrieve Schedules' }, { data: Type.Optional(GetSchedulesData) }),
    data: Type.Object({ schedules: Type.Array(ScheduleRecord) }),
    handler: async (body, ctx) => ({ schedules: await getSchedules(ctx.db, ctx.caller, body.data ?? {}) }),
  });

  operation(app, services, {
    path: '/billing/schedules/pause-schedule',
    role: 'biller',
    tag: TAG,
    summary: 'Pause a schedule',
    description: 'The daily run leaves a paused schedule alone: no term made, none loaded or validated. A paused schedule cannot be paused again (INVALID_STATE).',
    body: requestSchema({ method: 'Update', action: 'Pause Schedule' }, { data: ScheduleRef }),
    data: Type.Object({ schedule: ScheduleRecord }),
    handler: async (body, ctx) => ({ schedule: await pauseSchedule(ctx.db, ctx.caller, body.data.scheduleID) }),
  });

  operation(app, services, {
    path: '/billing/schedules/resume-schedule',
    role: 'biller',
    tag: TAG,
    summary: 'Resume a paused schedule',
    description:
      "It runs again from the period holding the app's today: periods that began and ended while it was paused get no term from it. Only a paused schedule can be resumed (INVALID_STATE).",
    body: requestSchema({ method: 'Update', action: 'Resume Schedule' }, { data: ScheduleRef }),
    data: Type.Object({ schedule: ScheduleRecord }),
    handler: async (body, ctx) => ({ schedule: await resumeSchedule(ctx.db, ctx.caller, body.data.scheduleID) }),
  });

  operation(app, services, {
    path: '/billing/schedules/get-schedule-runs',
    role: 'viewer',
    tag: TAG,
    summary: "What the schedules' runs did",
    description: 'Each step a schedule took on a period\'s term (make-term, load-subscriptions, validate-term, approve-term, process-term, close), newest first, with its outcome and message; errors carry the refusal\'s code.',
    body: requestSchema({ method: 'Retrieve', action: 'Retrieve Schedule Runs' }, { data: Type.Optional(GetScheduleRunsData) }),
    data: Type.Object({ runs: Type.Array(ScheduleRunRecord), paging: Paging }),
    handler: async (body, ctx) => getScheduleRuns(ctx.db, ctx.caller, body.data ?? {}),
  });

  operation(app, services, {
    path: '/billing/schedules/run-schedules',
    role: 'biller',
    tag: TAG,
    summary: "Run today's schedules now",
    description:
      "Queues the run of the app's schedules for its today (time zone and clock), the job the hourly tick queues on each new day. Running a day again makes nothing twice.",
    headers: { 'X-Billrun-Run-Date': 'the day the run is for, dd/mm/yyyy (get-schedule-runs with it shows what it did)' },
    body: requestSchema({ method: 'Create', action: 'Run Schedules' }, { data: Type.Optional(Type.Object({}, { additionalProperties: false })) }),
    data: Type.Object({}),
    handler: async (_body, ctx) => {
      const { runDate } = await runSchedulesNow(ctx.db, ctx.caller);
      ctx.reply.header('x-billrun-run-date', runDate);
      return {};
    },
  });
}
