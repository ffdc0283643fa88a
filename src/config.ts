// Every setting, read from the environment and checked once at start, so a bad one
// stops the process with a sentence instead of surfacing later as a stack trace.
import net from 'node:net';
import path from 'node:path';
import { passwordProblem } from './auth/password.ts';
import { CURRENCY_MESSAGE, isCurrency, isTimeZone, TIME_ZONE_MESSAGE } from './admin/appRules.ts';

export type Config = {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  embeddedPort: number;
  tokenTtlSeconds: number;
  logLevel: string;
  adminEmail: string | undefined;
  adminPassword: string | undefined;
  timeZone: string;
  currency: string;
  minorUnits: number;
  bodyLimitBytes: number;
  /** The most a request may take to arrive, headers and body (a slow sender holds a connection no longer). */
  requestTimeoutSeconds: number;
  /** Proxies whose X-Forwarded-For names the client (addresses or CIDRs); none: the socket's address is the client. */
  trustProxy: string[];
  workerConcurrency: number;
  runWorker: boolean;
  /** Roster subscriptions rated per bill-run job (one transaction each). */
  billRunChunkSize: number;
  /** A worker that has not beaten for this long is dead: its jobs are freed for others. */
  workerStaleSeconds: number;
  /** How long a stop (SIGTERM, SIGINT) may take before the process gives up on finishing and exits. */
  shutdownSeconds: number;
  /** smtp:// or smtps:// of the mail server bills are sent through; none: .eml files in mailDir. */
  smtpUrl: string | undefined;
  /** The From of bill e-mails. */
  mailFrom: string;
  /** Where bill e-mails are written as .eml files when no SMTP_URL is set. */
  mailDir: string;
  /** Webhook endpoints may be on loopback, link-local and private addresses (tests, a closed network). */
  webhooksAllowPrivate: boolean;
  /** How long one webhook request may take, connection to last byte. */
  webhookTimeoutMs: number;
  /** The first retry of a failed webhook message waits this long, doubling each time (capped at 4 h). */
  webhookRetryBaseMs: number;
  /** A message is retried this long after its first attempt; an endpoint failing this long is disabled. */
  webhookGiveUpSeconds: number;
  /** When set, GET /metrics asks for `Authorization: Bearer <this>`; unset: /metrics is open. */
  metricsToken: string | undefined;
  /** A worker process (`npm run worker`) serves its own /metrics on this port; unset: none. */
  metricsPort: number | undefined;
};

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid settings:\n  - ${problems.join('\n  - ')}`);
    this.problems = problems;
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];

  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return Number(raw);
  };

  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl !== undefined) {
    try {
      const u = new URL(databaseUrl);
      if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') {
        problems.push(`DATABASE_URL must start with postgres:// (got "${u.protocol}")`);
      }
    } catch {
      problems.push('DATABASE_URL is not a valid URL (expected postgres://user@host:port/database)');
    }
  }

  const logLevel = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`);

  const adminEmail = env.BILLRUN_ADMIN_EMAIL || undefined;
  const adminPassword = env.BILLRUN_ADMIN_PASSWORD || undefined;
  if (adminEmail !== undefined && !/^[^\s@]+@[^\s@]+$/.test(adminEmail)) {
    problems.push(`BILLRUN_ADMIN_EMAIL must be an e-mail address (got "${adminEmail}")`);
  }
  if (adminPassword !== undefined && passwordProblem(adminPassword)) {
    problems.push(`BILLRUN_ADMIN_PASSWORD ${passwordProblem(adminPassword)}`);
  }
  if ((adminEmail === undefined) !== (adminPassword === undefined)) {
    problems.push('BILLRUN_ADMIN_EMAIL and BILLRUN_ADMIN_PASSWORD go together: set both or neither');
  }

  const timeZone = env.BILLRUN_TIME_ZONE || 'UTC';
  if (!isTimeZone(timeZone)) problems.push(`BILLRUN_TIME_ZONE ${TIME_ZONE_MESSAGE} (got "${timeZone}")`);

  const currency = env.BILLRUN_CURRENCY || 'USD';
  if (!isCurrency(currency)) problems.push(`BILLRUN_CURRENCY ${CURRENCY_MESSAGE} (got "${currency}")`);

  const smtpUrl = env.SMTP_URL || undefined;
  if (smtpUrl !== undefined) {
    try {
      const u = new URL(smtpUrl);
      if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') problems.push(`SMTP_URL must start with smtp:// or smtps:// (got "${u.protocol}")`);
    } catch {
      problems.push('SMTP_URL is not a valid URL (expected smtp://user:pass@host:port)');
    }
  }
  const mailFrom = env.BILLRUN_MAIL_FROM || 'billing@localhost';
  if (!/^[^\s@]+@[^\s@]+$/.test(mailFrom)) problems.push(`BILLRUN_MAIL_FROM must be an e-mail address (got "${mailFrom}")`);
  const dataDir = path.resolve(env.BILLRUN_DATA_DIR || '.data/pg');
  const metricsToken = env.BILLRUN_METRICS_TOKEN || undefined;
  if (metricsToken !== undefined && (metricsToken.length < 16 || !/^[\x21-\x7e]+$/.test(metricsToken))) {
    problems.push('BILLRUN_METRICS_TOKEN must be at least 16 visible ASCII characters, no spaces');
  }

  const trustProxy = (env.BILLRUN_TRUST_PROXY ?? '').split(',').map((x) => x.trim()).filter((x) => x !== '');
  for (const p of trustProxy) {
    const [address, bits, extra] = p.split('/');
    const family = net.isIP(address ?? '');
    const bitsOk = bits === undefined || (/^[0-9]{1,3}$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (family === 0 || !bitsOk || extra !== undefined) problems.push(`BILLRUN_TRUST_PROXY must be IP addresses or CIDRs separated by commas (got "${p}")`);
  }

  const config: Config = {
    port: int('PORT', 8080, 0, 65535),
    host: env.HOST || '0.0.0.0',
    databaseUrl,
    dataDir,
    embeddedPort: int('BILLRUN_EMBEDDED_PG_PORT', 54329, 1024, 65535),
    tokenTtlSeconds: int('TOKEN_TTL_SECONDS', 12 * 3600, 60, 366 * 24 * 3600),
    logLevel,
    adminEmail,
    adminPassword,
    timeZone,
    currency,
    minorUnits: int('BILLRUN_MINOR_UNITS', 2, 0, 4),
    bodyLimitBytes: int('BODY_LIMIT_BYTES', 1024 * 1024, 1024, 512 * 1024 * 1024),
    requestTimeoutSeconds: int('REQUEST_TIMEOUT_SECONDS', 300, 10, 24 * 3600),
    trustProxy,
    workerConcurrency: int('WORKER_CONCURRENCY', 4, 1, 64),
    runWorker: env.BILLRUN_WORKER !== '0',
    billRunChunkSize: int('BILLRUN_CHUNK_SIZE', 5000, 1, 100000),
    workerStaleSeconds: int('BILLRUN_WORKER_STALE_SECONDS', 30, 2, 4 * 3600),
    shutdownSeconds: int('BILLRUN_SHUTDOWN_SECONDS', 30, 1, 3600),
    smtpUrl,
    mailFrom,
    // Beside the embedded PostgreSQL's folder: .data/mail by default.
    mailDir: path.resolve(env.BILLRUN_MAIL_DIR || path.join(path.dirname(dataDir), 'mail')),
    webhooksAllowPrivate: env.BILLRUN_WEBHOOKS_ALLOW_PRIVATE === '1',
    webhookTimeoutMs: int('BILLRUN_WEBHOOK_TIMEOUT_MS', 10000, 100, 120000),
    webhookRetryBaseMs: int('BILLRUN_WEBHOOK_RETRY_BASE_MS', 5000, 1, 3600000),
    webhookGiveUpSeconds: int('BILLRUN_WEBHOOK_GIVE_UP_SECONDS', 86400, 1, 30 * 86400),
    metricsToken,
    metricsPort: env.BILLRUN_METRICS_PORT ? int('BILLRUN_METRICS_PORT', 0, 1, 65535) : undefined,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
