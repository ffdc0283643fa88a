// A billrun server for one test file: its own database copied from the migrated
// template, a real HTTP listener on a free port, and users of two apps to act as.
import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { createPool } from '../../src/db/pool.ts';
import { hashPassword } from '../../src/auth/password.ts';
import { createApp, createUser } from '../../src/auth/store.ts';
import type { Role } from '../../src/auth/roles.ts';

export type Answer<T = any> = { status: number; body: T; headers: Headers };

export type Harness = {
  url: string;
  db: pg.Pool;
  dbUrl: string;
  config: Config;
  app: FastifyInstance;
  /** Tokens of app A's admin, biller, viewer, and app B's admin. */
  tokens: { admin: string; biller: string; viewer: string; otherAdmin: string };
  appCode: number;
  otherAppCode: number;
  post: (path: string, body: unknown, token?: string, headers?: Record<string, string>) => Promise<Answer>;
  request: (method: string, path: string, opts?: { body?: unknown; token?: string; headers?: Record<string, string>; raw?: string }) => Promise<Answer>;
  login: (email: string, password: string) => Promise<Answer>;
  close: () => Promise<void>;
};

export const PASSWORD = 'correct horse battery';

export type HarnessOptions = {
  /** Called before the server listens (extra routes, hooks). */
  beforeListen?: (app: FastifyInstance) => void;
  /** The server logs here, as in production (level from config.logLevel, same redaction), instead of nowhere. */
  logStream?: { write(line: string): void };
};

export async function startHarness(overrides: Partial<Config> = {}, beforeListen?: (app: FastifyInstance) => void, options: HarnessOptions = {}): Promise<Harness> {
  const serverUrl = process.env.BILLRUN_TEST_SERVER_URL;
  const template = process.env.BILLRUN_TEST_TEMPLATE;
  if (!serverUrl || !template) throw new Error('run the tests with npm test (test/run.ts prepares the database)');
  // Named after the run, so that a run cleans up only its own databases.
  const name = `billrun_t_${process.env.BILLRUN_TEST_RUN_ID ?? 'x'}_${crypto.randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  await admin.end();
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return harnessOn(u.toString(), overrides, { beforeListen, ...options });
}

/**
 * The tests' fixed dates run to January 2027, and a reading dated after the app's today is
 * refused (issue 9, defect 11): the database's today is pinned (migration 007's
 * billrun_today) to the last of those days, so the tests mean the same whatever day they run.
 */
export const TEST_TODAY = '2027-01-31';
async function pinToday(dbUrl: string): Promise<void> {
  const c = new pg.Client({ connectionString: dbUrl });
  await c.connect();
  try {
    const name = (await c.query<{ n: string }>('SELECT current_database() AS n')).rows[0]!.n;
    await c.query(`ALTER DATABASE ${pg.escapeIdentifier(name)} SET billrun.today = '${TEST_TODAY}'`);
  } finally {
    await c.end();
  }
}

/** A harness on a database that is already migrated (a private PostgreSQL of one test, say). */
export async function harnessOn(dbUrl: string, overrides: Partial<Config> = {}, options: HarnessOptions = {}): Promise<Harness> {
  await pinToday(dbUrl);
  // Bill e-mails (no SMTP_URL) go to a folder of this test, never the project's .data/mail.
  const mailDir = path.join(os.tmpdir(), `billrun-mail-${crypto.randomBytes(6).toString('hex')}`);
  const config: Config = { ...loadConfig({ LOG_LEVEL: 'silent' }), databaseUrl: dbUrl, mailDir, ...overrides };
  const db = createPool(dbUrl, 10);
  // A 500 is always written out (stderr, level error): a failure seen once in CI must say why.
  const app = await buildApp(options.logStream ? { config, db, logStream: options.logStream } : { config, db, logger: { level: 'error', stream: process.stderr } });
  const beforeListen = options.beforeListen;
  beforeListen?.(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

  const hash = await hashPassword(PASSWORD);
  const appCode = await createApp(db, 'App A', 'Africa/Nairobi', 'KES', 2);
  const otherAppCode = await createApp(db, 'App B', 'UTC', 'USD', 2);
  const users: [number, string, Role][] = [
    [appCode, 'admin@a.test', 'admin'],
    [appCode, 'biller@a.test', 'biller'],
    [appCode, 'viewer@a.test', 'viewer'],
    [otherAppCode, 'admin@b.test', 'admin'],
  ];
  for (const [code, email, role] of users) await createUser(db, code, email, hash, role);

  const request: Harness['request'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.token !== undefined) headers.authorization = opts.token;
    let body: string | undefined = opts.raw;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(url + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {}
    return { status: res.status, body: parsed as any, headers: res.headers };
  };
  const login = (email: string, password: string) =>
    request('POST', '/auth/login', { body: { method: 'Create', action: 'Login', apiVersion: 'v2', data: { email, password } } });
  const tokenOf = async (email: string) => {
    const r = await login(email, PASSWORD);
    if (r.status !== 200) throw new Error(`login ${email}: ${JSON.stringify(r.body)}`);
    return r.body.data.accessToken as string;
  };
  const tokens = {
    admin: await tokenOf('admin@a.test'),
    biller: await tokenOf('biller@a.test'),
    viewer: await tokenOf('viewer@a.test'),
    otherAdmin: await tokenOf('admin@b.test'),
  };
  return {
    url,
    db,
    dbUrl,
    config,
    app,
    tokens,
    appCode,
    otherAppCode,
    request,
    login,
    post: (path, body, token = tokens.admin, headers) => request('POST', path, { body, token, headers }),
    close: async () => {
      await app.close();
      await db.end();
    },
  };
}
