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
import { bootstrapAdmin } from './admin/bootstrap.ts';
// The HTTP server and the job worker (Fastify, every route, graphile-worker, the PDF and
// template engines) load only for the commands that run them: loading them took 2 s of
// CPU before every `import` of the command line, more than the COPY of 100,000 rows.
const buildApp = async (...a: Parameters<typeof import('./app.ts').buildApp>) => (await import('./app.ts')).buildApp(...a);
const startWorker = async (...a: Parameters<typeof import('./jobs/worker.ts').startWorker>) => (await import('./jobs/worker.ts')).startWorker(...a);
const serveWorkerMetrics = async (...a: Parameters<typeof import('./metrics/workerServer.ts').serveWorkerMetrics>) =>
  (await import('./metrics/workerServer.ts')).serveWorkerMetrics(...a);
import { importCommand } from './imports/cli.ts';
import { makeApp } from './admin/apps.ts';
import { makeUser } from './admin/users.ts';
import { COMMAND_LINE } from './admin/audit.ts';
import { AppError } from './errors.ts';

const USAGE = `usage: npm run cli -- <command>
  serve                      start the HTTP API (and a worker unless BILLRUN_WORKER=0)
  worker                     run bill-run jobs only
  migrate                    apply database migrations and exit
  schema-dump [--check]      write src/db/schema.sql (or check it is current)
  app add --name N [--time-zone Z] [--currency C] [--minor-units 0-4] [--rounding halfUp|halfEven|halfDown|up|down|ceil|floor] [--test]
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
        options: {
          name: { type: 'string' },
          'time-zone': { type: 'string' },
          currency: { type: 'string' },
          'minor-units': { type: 'string' },
          rounding: { type: 'string' },
          test: { type: 'boolean' },
        },
      });
      if (rest[0] !== 'add' || !values.name) {
        say(USAGE);
        await closeAll();
        return 2;
      }
      // The same rules as the admin API's update-app (admin/apps.ts), each problem named by its option.
      const minor = values['minor-units'];
      try {
        const code = await makeApp(db, COMMAND_LINE, {
          name: values.name,
          timeZone: values['time-zone'] ?? config.timeZone,
          currency: values.currency ?? config.currency,
          minorUnits: minor === undefined ? config.minorUnits : /^[0-9]$/.test(minor) ? Number(minor) : -1,
          rounding: values.rounding ?? 'halfUp',
          testApp: values.test ?? false,
        }, cliOption);
        process.stdout.write(`${code}\n`);
      } catch (err) {
        await closeAll();
        if (err instanceof AppError) {
          say(cliProblem(err));
          return 2;
        }
        throw err;
      }
      await closeAll();
      return 0;
    }
    case 'user': {
      const { values } = parseArgs({
        args: rest.slice(1),
        options: { app: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' }, role: { type: 'string' } },
      });
      if (rest[0] !== 'add' || !values.app || !values.email || !values.password || !values.role || !/^[0-9]{1,9}$/.test(values.app)) {
        say(USAGE);
        await closeAll();
        return 2;
      }
      // The same rules as the admin API's make-user (admin/users.ts).
      try {
        const id = await makeUser(db, Number(values.app), COMMAND_LINE, { email: values.email, password: values.password, role: values.role }, cliOption);
        process.stdout.write(`${id}\n`);
      } catch (err) {
        await closeAll();
        if (err instanceof AppError) {
          say(cliProblem(err));
          return err.code === 'VALIDATION_FAILED' ? 2 : 1;
        }
        throw err;
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

/** A field of the admin rules as the command line names it: timeZone → --time-zone. */
const cliOption = (field: string) => `--${field.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())}`;

/** An admin rule's refusal as the command line says it: each option and what is wrong. */
const cliProblem = (err: AppError) =>
  err.details && err.details.length > 0 ? err.details.map((d) => `${d.path} ${d.message}`).join('\n') : err.message;

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
