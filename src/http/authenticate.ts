// Who is calling: the token in Authorization, looked up by its hash (held in memory a few
// seconds by auth/sessionCache.ts, which every change of a session reaches at once). Business routes
// take the token as is (interface.md) and tolerate a "Bearer " prefix; the sandbox
// demands the prefix.
import type { FastifyRequest } from 'fastify';
import type { Caller } from '../auth/roles.ts';
import type { SessionCache } from '../auth/sessionCache.ts';
import { tokenHash } from '../auth/token.ts';
import { AppError } from '../errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
}

export function tokenFrom(header: string | undefined, bearerRequired: boolean): string | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  const m = /^Bearer\s+(\S+)$/i.exec(trimmed);
  if (m) return m[1];
  if (bearerRequired) return undefined;
  return /^\S+$/.test(trimmed) ? trimmed : undefined;
}

export async function authenticate(sessions: SessionCache, request: FastifyRequest, bearerRequired: boolean): Promise<Caller> {
  const token = tokenFrom(request.headers.authorization, bearerRequired);
  if (!token) {
    throw new AppError('UNAUTHENTICATED', bearerRequired ? 'Send Authorization: Bearer <token>.' : 'Send the access token in Authorization.', [
      { path: 'Authorization', message: 'is missing or malformed' },
    ]);
  }
  const caller = await sessions.lookup(tokenHash(token));
  if (!caller) {
    throw new AppError('UNAUTHENTICATED', 'The access token is not valid, has expired or was logged out.', [
      { path: 'Authorization', message: 'is not a valid token' },
    ]);
  }
  request.caller = caller;
  return caller;
}

export function requireCaller(request: FastifyRequest): Caller {
  if (!request.caller) throw new AppError('UNAUTHENTICATED', 'Send the access token in Authorization.');
  return request.caller;
}
