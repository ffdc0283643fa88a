// The login and logout operations: HTTP over auth/, kept out of it because http/ itself
// authenticates every request with auth/ (a caller by token, the role table).
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { operation, requestSchema, type Services } from '../http/operation.ts';
import { notFound } from '../errors.ts';
import { readApp, revokeToken } from '../auth/store.ts';
import { login } from '../auth/login.ts';
import { ROLES } from '../auth/roles.ts';

const LoginData = Type.Object({
  accessToken: Type.String(),
  expiresAt: Type.String({ format: 'date-time' }),
  user: Type.Object({ email: Type.String(), appCode: Type.Integer(), role: Type.Enum(ROLES) }),
});

export async function authRoutes(app: FastifyInstance, services: Services): Promise<void> {
  operation(app, services, {
    path: '/auth/login',
    auth: 'none',
    role: 'viewer',
    tag: 'auth',
    summary: 'Log in',
    description: 'Exchanges an e-mail and password for an access token. From the fifth failure in a row, further attempts at that e-mail from the same client address are refused (429, Retry-After) for a doubling delay, whether the e-mail has an account or not.',
    body: requestSchema({ method: 'Create', action: 'Login' }, {
      data: Type.Object(
        { email: Type.String({ minLength: 3, maxLength: 254 }), password: Type.String({ minLength: 1, maxLength: 1024 }) },
        { additionalProperties: false },
      ),
    }),
    data: LoginData,
    handler: async (body, ctx) => login(ctx.db, body.data.email, body.data.password, ctx.config.tokenTtlSeconds, ctx.request.ip),
  });

  operation(app, services, {
    path: '/auth/logout',
    role: 'viewer',
    tag: 'auth',
    summary: 'Log out',
    description: 'Ends the token in Authorization at once. No body is needed; one sent is checked as on every route (JSON, and the envelope fields given), and a refused request leaves the token valid.',
    data: Type.Object({}),
    handler: async (_body, ctx) => {
      await revokeToken(ctx.db, ctx.caller.tokenHash);
      // At once here; every other process hears it from the database (migration 069).
      ctx.sessions.forget(ctx.caller.tokenHash);
      return {};
    },
  });
}

const SessionData = Type.Object({
  user: Type.Object({ email: Type.String(), appCode: Type.Integer(), role: Type.Enum(ROLES) }),
  app: Type.Object({
    appCode: Type.Integer(),
    name: Type.String(),
    timeZone: Type.String({ description: 'IANA name; date-times without a zone (sheduleTime) are read in it' }),
    currency: Type.String(),
    minorUnits: Type.Integer(),
    today: Type.String({ description: "dd/mm/yyyy: the app's today by its clock (a test app's set-clock moves it), the last day a reading may be dated" }),
  }),
});

/** Behind authentication: who the token's user is and the settings of their app (the console shows times in its zone). */
export async function sessionRoutes(app: FastifyInstance, services: Services): Promise<void> {
  operation(app, services, {
    path: '/auth/get-session',
    role: 'viewer',
    tag: 'auth',
    summary: 'The caller and their app',
    description: "The token's user (e-mail, app, role) and the app's name, time zone, currency and minor units.",
    body: requestSchema({ method: 'Retrieve', action: 'Retrieve Session' }, {}),
    data: SessionData,
    handler: async (_body, ctx) => {
      const settings = await readApp(ctx.db, ctx.caller.appCode);
      if (!settings) throw notFound('app', 'appCode');
      return { user: { email: ctx.caller.email, appCode: ctx.caller.appCode, role: ctx.caller.role }, app: settings };
    },
  });
}
