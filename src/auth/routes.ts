import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { FailureSchema, ok, successSchema } from '../http/envelope.ts';
import type { Services } from '../http/operation.ts';
import { authenticate } from '../http/authenticate.ts';
import { revokeToken } from './store.ts';
import { login } from './login.ts';
import { ROLES } from './roles.ts';

const LoginBody = Type.Object(
  {
    method: Type.Literal('Create'),
    action: Type.Literal('Login'),
    apiVersion: Type.Literal('v2'),
    data: Type.Object(
      { email: Type.String({ minLength: 3, maxLength: 254 }), password: Type.String({ minLength: 1, maxLength: 1024 }) },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

const LoginData = Type.Object({
  accessToken: Type.String(),
  expiresAt: Type.String({ format: 'date-time' }),
  user: Type.Object({ email: Type.String(), appCode: Type.Integer(), role: Type.Enum(ROLES) }),
});

export async function authRoutes(app: FastifyInstance, services: Services): Promise<void> {
  app.post(
    '/auth/login',
    {
      schema: {
        tags: ['auth'],
        summary: 'Log in',
        description: 'Exchanges an e-mail and password for an access token. Repeated failures lock the account for a doubling delay.',
        body: LoginBody,
        response: { 200: successSchema(LoginData), '4xx': FailureSchema, '5xx': FailureSchema },
      },
    },
    async (request) => {
      const body = request.body as { data: { email: string; password: string } };
      return ok(await login(services.db, body.data.email, body.data.password, services.config.tokenTtlSeconds));
    },
  );

  app.post(
    '/auth/logout',
    {
      schema: {
        tags: ['auth'],
        summary: 'Log out',
        description: 'Ends the token in Authorization at once. The body, if any, is ignored.',
        response: { 200: successSchema(Type.Object({})), '4xx': FailureSchema, '5xx': FailureSchema },
        security: [{ token: [] }],
      },
    },
    async (request) => {
      const caller = await authenticate(services.db, request, false);
      await revokeToken(services.db, caller.tokenHash);
      return ok({});
    },
  );
}
