// The administration operations under /admin/ (admin role): the app's settings and clock,
// its users and its audit log (docs/administration.md). Another app's users, audit log and
// clock are out of reach: every operation acts on the caller's own app.
import { PASSWORD_MIN_LENGTH } from '../auth/password.ts';
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { operation, requestSchema, type Services } from '../http/operation.ts';
import { Id, Money, NO_NUL, Paging, PagingInput, DECIMAL_PATTERN, LOCAL_TIME_PATTERN } from '../primitives.ts';
import { ROLES } from '../auth/roles.ts';
import { ROUNDING_MODES } from '../rating/money.ts';
import { readAppRecord, updateApp, LATE_CHARGE_KINDS } from './apps.ts';
import { setClock } from './clock.ts';
import { listUsers, makeUser, resetPassword, updateUser } from './users.ts';
import { AUDIT_ACTIONS, listAudit } from './audit.ts';
import { CURRENCY_PATTERN, MINOR_UNITS, USER_EMAIL_PATTERN } from './appRules.ts';

const TAG = 'administration';
const Empty = Type.Object({});
const LocalTime = Type.String({ pattern: LOCAL_TIME_PATTERN, description: "yyyy-mm-ddThh:mm:ss in the app's time zone" });
const Name = Type.String({ minLength: 1, maxLength: 200, pattern: NO_NUL });
const Email = Type.String({ minLength: 3, maxLength: 254, pattern: USER_EMAIL_PATTERN });
const Password = Type.String({ minLength: PASSWORD_MIN_LENGTH, maxLength: 1024, description: `at least ${PASSWORD_MIN_LENGTH} characters` });
const DecimalText = Type.String({ maxLength: 24, pattern: DECIMAL_PATTERN });

const LateChargeInput = Type.Object(
  {
    graceDays: Type.Integer({ minimum: 0, maximum: 365, description: 'days after the due date before a bill still open is charged' }),
    kind: Type.Enum(LATE_CHARGE_KINDS, { description: "'none', 'flat' (amount in the currency) or 'percentage' (amount percent of the open amount)" }),
    amount: Type.Optional(DecimalText),
    minimum: Type.Optional(Type.Union([DecimalText, Type.Null()])),
    maximum: Type.Optional(Type.Union([DecimalText, Type.Null()])),
  },
  { additionalProperties: false },
);

const AppData = Type.Object({
  appCode: Type.Integer(),
  name: Type.String(),
  address: Type.String(),
  taxNumber: Type.String({ description: "the supplier's tax registration (VAT) number printed on its bills and credit notes; empty for none" }),
  timeZone: Type.String({ description: 'IANA name' }),
  currency: Type.String(),
  minorUnits: Type.Integer(),
  rounding: Type.Enum(ROUNDING_MODES),
  testApp: Type.Boolean({ description: 'a test app may move its clock forward; a live app runs on real time' }),
  clock: Type.Object({
    now: Type.String({ description: "the app's now, yyyy-mm-ddThh:mm:ss in its time zone" }),
    today: Type.String({ description: "the app's today, dd/mm/yyyy: bill dates, ageing and late charges use it" }),
    aheadSeconds: Type.Integer({ description: 'how far the clock is ahead of real time (0 for a live app)' }),
  }),
  lateCharge: Type.Object({
    graceDays: Type.Integer(),
    kind: Type.Enum(LATE_CHARGE_KINDS),
    amount: Money,
    minimum: Type.Union([Money, Type.Null()]),
    maximum: Type.Union([Money, Type.Null()]),
  }),
  moneyRecorded: Type.Boolean({ description: 'a bill or ledger entry exists: currency and minorUnits are fixed' }),
});

const UserData = Type.Object({
  userID: Type.Integer(),
  email: Type.String(),
  role: Type.Enum(ROLES),
  disabled: Type.Boolean(),
  createdAt: Type.String({ description: "yyyy-mm-dd hh:mm:ss in the app's time zone" }),
});

const AuditEntry = Type.Object({
  auditID: Type.Integer(),
  at: Type.String({ description: "yyyy-mm-dd hh:mm:ss in the app's time zone (real time)" }),
  userID: Type.Union([Type.Integer(), Type.Null()], { description: 'the acting user; null for the command line' }),
  user: Type.String({ description: "the acting user's e-mail, or 'command line'" }),
  action: Type.Enum(AUDIT_ACTIONS),
  target: Type.String({ description: "'app' or 'user:<userID>'" }),
  before: Type.Unknown({ description: 'the record before the change (null when made)' }),
  after: Type.Unknown({ description: 'the record after the change' }),
});

export async function adminRoutes(app: FastifyInstance, services: Services): Promise<void> {
  operation(app, services, {
    path: '/admin/get-app',
    role: 'admin',
    tag: TAG,
    summary: "Read the app's settings",
    description: "The caller's app: name, address, tax number, time zone, currency and minor units, rounding rule, test flag and clock, late-charge defaults.",
    body: requestSchema({ method: 'Retrieve', action: 'Retrieve App' }, { data: Type.Optional(Type.Object({}, { additionalProperties: false })) }),
    data: Type.Object({ app: AppData }),
    handler: async (_body, ctx) => ({ app: await readAppRecord(ctx.db, ctx.caller.appCode) }),
  });

  operation(app, services, {
    path: '/admin/update-app',
    role: 'admin',
    tag: TAG,
    summary: "Change the app's settings",
    description:
      "Changes the fields given. currency and minorUnits are refused (INVALID_STATE) once the app has a bill or a ledger entry; rounding, currency and minorUnits are refused (CONFLICT) while a term is between approval and posting. lateCharge replaces the defaults whole. testApp false is refused while the clock is ahead of real time. Written to the audit log with the settings before and after.",
    body: requestSchema({ method: 'Update', action: 'Update App' }, {
      data: Type.Object(
        {
          name: Type.Optional(Name),
          address: Type.Optional(Type.String({ maxLength: 500, pattern: NO_NUL })),
          taxNumber: Type.Optional(Type.String({ maxLength: 50, pattern: NO_NUL, description: "the supplier's tax registration (VAT) number, printed on its bills; '' removes it" })),
          timeZone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'IANA name, e.g. Africa/Nairobi' })),
          currency: Type.Optional(Type.String({ pattern: CURRENCY_PATTERN, description: 'ISO 4217 code' })),
          minorUnits: Type.Optional(Type.Integer(MINOR_UNITS)),
          rounding: Type.Optional(Type.Enum(ROUNDING_MODES)),
          testApp: Type.Optional(Type.Boolean()),
          lateCharge: Type.Optional(LateChargeInput),
        },
        { additionalProperties: false },
      ),
    }),
    data: Empty,
    headers: { 'X-Billrun-Terms-Revalidate': 'the termIDs (comma-separated) of the Validated terms a change of rounding, currency or minor units sent back to Loaded: validate them again; absent when none' },
    handler: async (body, ctx) => {
      // Said, not silent: the next approve-term of such a term was refused with no word of why (an outside check).
      const revalidate = await updateApp(ctx.db, ctx.caller.appCode, ctx.caller, body.data);
      if (revalidate.length > 0) ctx.reply.header('x-billrun-terms-revalidate', revalidate.join(','));
      return {};
    },
  });

  operation(app, services, {
    path: '/admin/set-clock',
    role: 'admin',
    tag: TAG,
    summary: "Move a test app's clock forward",
    description:
      "Sets a test app's now (now, in its time zone) or moves it on by days; never back. Bill dates, readings' today, ageing, late charges and scheduled runs follow it; a scheduled run whose sheduleTime the clock passes is started at once. A live app is refused (INVALID_STATE).",
    body: requestSchema({ method: 'Update', action: 'Set Clock' }, {
      data: Type.Object({ now: Type.Optional(LocalTime), days: Type.Optional(Type.Integer({ minimum: 1, maximum: 36500 })) }, { additionalProperties: false }),
    }),
    data: Empty,
    handler: async (body, ctx) => {
      await setClock(ctx.db, ctx.caller.appCode, ctx.caller, body.data);
      return {};
    },
  });

  operation(app, services, {
    path: '/admin/get-users',
    role: 'admin',
    tag: TAG,
    summary: "List the app's users",
    description: 'The users of the caller\'s app (by userID or e-mail when given), oldest first, paged (limit, default 100, and offset).',
    body: requestSchema({ method: 'Retrieve', action: 'Retrieve Users' }, {
      data: Type.Optional(Type.Object({ userID: Type.Optional(Id), email: Type.Optional(Type.String({ maxLength: 254 })), ...PagingInput }, { additionalProperties: false })),
    }),
    data: Type.Object({ users: Type.Array(UserData), paging: Paging }),
    handler: async (body, ctx) => {
      const limit = body.data?.limit ?? 100;
      const offset = body.data?.offset ?? 0;
      const found = await listUsers(ctx.db, ctx.caller.appCode, { userID: body.data?.userID, email: body.data?.email }, limit, offset);
      return { users: found.rows, paging: { limit, offset, total: found.total } };
    },
  });

  operation(app, services, {
    path: '/admin/make-user',
    role: 'admin',
    tag: TAG,
    summary: 'Add a user',
    headers: { 'X-Billrun-User-Id': 'the new userID' },
    description: 'A new user of the caller\'s app. An e-mail logs into one app only: one in use anywhere is a CONFLICT. The new userID is in the X-Billrun-User-Id header.',
    idempotent: true,
    body: requestSchema({ method: 'Create', action: 'Create User' }, {
      data: Type.Object({ email: Email, password: Password, role: Type.Enum(ROLES) }, { additionalProperties: false }),
    }),
    data: Empty,
    handler: async (body, ctx) => {
      const id = await makeUser(ctx.db, ctx.caller.appCode, ctx.caller, body.data);
      ctx.reply.header('x-billrun-user-id', id);
      return {};
    },
  });

  operation(app, services, {
    path: '/admin/update-user',
    role: 'admin',
    tag: TAG,
    summary: "Change a user's role or disable them",
    description:
      'A new role, or disabled true (their tokens end at once) or false. No one may raise their own role (FORBIDDEN); the app\'s last active admin cannot be disabled or demoted (INVALID_STATE).',
    body: requestSchema({ method: 'Update', action: 'Update User' }, {
      data: Type.Object(
        { userID: Id, role: Type.Optional(Type.Enum(ROLES)), disabled: Type.Optional(Type.Boolean()) },
        { additionalProperties: false },
      ),
    }),
    data: Empty,
    handler: async (body, ctx) => {
      await updateUser(ctx.db, ctx.caller.appCode, ctx.caller, body.data);
      // At once here; every other process hears it from the database (migration 069).
      ctx.sessions.forgetUser(body.data.userID);
      return {};
    },
  });

  operation(app, services, {
    path: '/admin/reset-password',
    role: 'admin',
    tag: TAG,
    summary: "Reset a user's password",
    description: "Sets a new password (at least 8 characters) and ends the user's sessions (but the caller's own).",
    body: requestSchema({ method: 'Update', action: 'Reset Password' }, {
      data: Type.Object({ userID: Id, password: Password }, { additionalProperties: false }),
    }),
    data: Empty,
    handler: async (body, ctx) => {
      await resetPassword(ctx.db, ctx.caller.appCode, ctx.caller, body.data.userID, body.data.password);
      ctx.sessions.forgetUser(body.data.userID);
      return {};
    },
  });

  operation(app, services, {
    path: '/admin/get-audit-log',
    role: 'admin',
    tag: TAG,
    summary: 'Read the audit log',
    description: "Every administrative change of the caller's app, newest first (of one action or target when given), paged (limit, default 100, and offset).",
    body: requestSchema({ method: 'Retrieve', action: 'Retrieve Audit Log' }, {
      data: Type.Optional(
        Type.Object(
          { action: Type.Optional(Type.Enum(AUDIT_ACTIONS)), target: Type.Optional(Type.String({ maxLength: 64 })), ...PagingInput },
          { additionalProperties: false },
        ),
      ),
    }),
    data: Type.Object({ entries: Type.Array(AuditEntry), paging: Paging }),
    handler: async (body, ctx) => {
      const limit = body.data?.limit ?? 100;
      const offset = body.data?.offset ?? 0;
      const found = await listAudit(ctx.db, ctx.caller.appCode, { action: body.data?.action, target: body.data?.target }, limit, offset);
      return {
        entries: found.rows.map((r) => ({
          auditID: Number(r.audit_id),
          at: r.at,
          userID: r.user_id === null ? null : Number(r.user_id),
          user: r.actor,
          action: r.action as (typeof AUDIT_ACTIONS)[number],
          target: r.target,
          before: r.before,
          after: r.after,
        })),
        paging: { limit, offset, total: found.total },
      };
    },
  });
}
