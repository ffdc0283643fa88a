// The command line: `serve` (the default for npm start), `worker`, `migrate`,
// `schema-dump`, `app add`, `user add`. Settings come from the environment (config.ts).
import { parseArgs } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { connectDatabase } from './db/connect.ts';
import { migrate } from './db/migrate.ts';
import { createPool } from './db/pool.ts';
import { dumpSchema } from './db/schemaDump.ts';
import { bootstrapAdmin } from './auth/bootstrap.ts';
import { buildApp } from './app.ts';
import { startWorker } from './jobs/worker.ts';
import { serveWorkerMetrics } from './metrics/workerServer.ts';
import { hashPassword } from './auth/password.ts';
import { createApp, createUser } from './auth/store.ts';
import { ROLES, type Role } from './auth/roles.ts';
import { importCommand } from './imports/cli.ts';
import { ROUNDING_MODES, type RoundingMode } from './rating/money.ts';

const USAGE = `usage: npm run cli -- <command>
  serve                      start the HTTP API (and a worker unless BILLRUN_WORKER=0)
  worker                     run bill-run jobs only
  migrate                    apply database migrations and exit
  schema-dump [--check]      write src/db/schema.sql (or check it is current)
  app add --name N [--time-zone Z] [--currency C] [--rounding halfUp|halfEven|halfDown|up|down|ceil|floor]
  user add --app CODE --email E --password P --role admin|biller|viewer
  import --app CODE --kind accounts|subscriptions|readings [--as EMAIL] [--dry-run] FILE.csv|FILE.json`;

const say = (line: string) => process.stderr.write(line + '\n');

async function main(argv: string[]): Promise<number> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      say(err.message);
      return 2;
    }
    throw err;
  }
  const [command = 'serve', ...rest] = argv;
  if (command === 'help' || command === '--help') {
    say(USAGE);
    return 0;
  }
  const database = await connectDatabase(config, config.logLevel === 'debug' ? say : () => {});
  await migrate(database.url);
  if (command === 'migrate') {
    say('migrations applied');
    await database.stop();
    return 0;
  }
  const db = createPool(database.url, 20);
  const closeAll = async () => {
    await db.end().catch(() => {});
    await database.stop().catch(() => {});
  };

  switch (command) {
    case 'serve': {
      const admin = await bootstrapAdmin(db, config);
      if (admin) say(`created the first admin: ${admin}`);
      const app = await buildApp({ config, db });
      const worker = config.runWorker ? await startWorker(db, config) : undefined;
      await app.listen({ port: config.port, host: config.host });
      await untilSignal(config.shutdownSeconds);
      app.log.info('shutting down: finishing requests in flight');
      await app.close();
      await worker?.stop();
      await closeAll();
      return 0;
    }
    case 'worker': {
      const worker = await startWorker(db, config);
      say(`worker running (concurrency ${config.workerConcurrency})`);
      // Its own /metrics (chunk times, deliveries, its pool), when BILLRUN_METRICS_PORT is set.
      const metrics = config.metricsPort === undefined ? undefined : await serveWorkerMetrics(db, config);
      if (metrics) say(`worker metrics on http://${config.host}:${config.metricsPort}/metrics`);
      await Promise.race([untilSignal(config.shutdownSeconds), worker.promise]);
      metrics?.close();
      await worker.stop().catch(() => {});
      await closeAll();
      return 0;
    }
    case 'schema-dump': {
      const file = path.join(path.dirname(fileURLToPath(import.meta.url)), 'db', 'schema.sql');
      const dump = await dumpSchema(db);
      await closeAll();
      if (rest.includes('--check')) {
        const committed = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
        if (committed !== dump) {
          say('src/db/schema.sql is not what the migrations make: run `npm run schema:dump` and commit it');
          return 1;
        }
        say('schema.sql is current');
        return 0;
      }
      fs.writeFileSync(file, dump);
      say(`wrote ${file}`);
      return 0;
    }
    case 'app': {
      const { values } = parseArgs({
        args: rest.slice(1),
        options: { name: { type: 'string' }, 'time-zone': { type: 'string' }, currency: { type: 'string' }, rounding: { type: 'string' } },
      });
      if (rest[0] !== 'add' || !values.name) {
        say(USAGE);
        await closeAll();
        return 2;
      }
      const rounding = (values.rounding ?? 'halfUp') as RoundingMode;
      if (!ROUNDING_MODES.includes(rounding)) {
        say(`--rounding must be one of ${ROUNDING_MODES.join(', ')}`);
        await closeAll();
        return 2;
      }
      const code = await createApp(db, values.name, values['time-zone'] ?? config.timeZone, values.currency ?? config.currency, config.minorUnits, rounding);
      process.stdout.write(`${code}\n`);
      await closeAll();
      return 0;
    }
    case 'user': {
      const { values } = parseArgs({
        args: rest.slice(1),
        options: { app: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' }, role: { type: 'string' } },
      });
      const role = values.role as Role | undefined;
      if (rest[0] !== 'add' || !values.app || !values.email || !values.password || !role || !ROLES.includes(role)) {
        say(USAGE);
        await closeAll();
        return 2;
      }
      if (values.password.length < 8) {
        say('the password must be at least 8 characters');
        await closeAll();
        return 2;
      }
      try {
        const id = await createUser(db, Number(values.app), values.email, await hashPassword(values.password), role);
        process.stdout.write(`${id}\n`);
      } catch (err) {
        const code = (err as { code?: string }).code;
        say(code === '23505' ? `a user with e-mail ${values.email} exists already` : code === '23503' ? `there is no app ${values.app}` : String(err));
        await closeAll();
        return 1;
      }
      await closeAll();
      return 0;
    }
    case 'import': {
      const code = await importCommand(db, rest, say);
      await closeAll();
      return code;
    }
    default:
      say(`unknown command "${command}"\n${USAGE}`);
      await closeAll();
      return 2;
  }
}

/**
 * Resolves at the first SIGINT or SIGTERM; from then the stop has `deadlineSeconds` to
 * finish. A stop waits for requests, jobs and the database, and the job queue's pool
 * waits for a database that went away to come back: with the database gone for good a
 * SIGTERM hung the process for ever. Past the deadline, or at a second signal, it exits.
 */
function untilSignal(deadlineSeconds: number): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      resolve();
      setTimeout(() => {
        say(`billrun: the stop did not finish in ${deadlineSeconds} s (is the database gone?); exiting without it`);
        process.exit(1);
      }, deadlineSeconds * 1000).unref();
      const now = () => {
        say('billrun: a second signal; exiting now');
        process.exit(1);
      };
      process.once('SIGINT', now);
      process.once('SIGTERM', now);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    say(`billrun: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
