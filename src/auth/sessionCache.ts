// The sessions this process has checked, kept in memory for a few seconds so that a read
// does not look its token up in the database first (issue 15: that lookup was a third of
// the database's work). What ends or changes a session is announced by the database itself
// (migration 069's triggers on access_token and app_user, channel billrun_session) and
// heard here on a connection of its own, so a logout, a disabled or demoted user, a
// password reset take effect at once on every process, whichever process or tool made
// them. Login is never cached: the lockout is read from the database at every attempt.
//
// Fail safe: the cache is trusted only while that connection is up and listening. When it
// drops (or stops answering its heartbeat), everything held is thrown away and every
// request goes to the database until it is back; a lookup that was in flight across any
// notification, loss or reconnection is answered but not kept, so a stale answer can
// never be stored after the notification that made it stale.
import pg from 'pg';
import type { Caller } from './roles.ts';
import { sessionByToken } from './store.ts';

export const SESSION_CHANNEL = 'billrun_session';
/** How the listening connection names itself in pg_stat_activity. */
export const LISTENER_NAME = 'billrun session listener';

export type SessionCacheOptions = {
  /** The longest a checked session is kept without being looked up again (a bound even if a notification were lost unnoticed). */
  ttlMs?: number;
  /** Past this many sessions, the cache starts again empty. */
  maxEntries?: number;
  /** How long after losing the listening connection it tries again. */
  reconnectMs?: number;
  /** How often the listening connection is asked to answer; one that does not within this time is dropped. */
  heartbeatMs?: number;
};

type Entry = { caller: Caller; userId: string; until: number };

export class SessionCache {
  readonly #db: pg.Pool;
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #reconnectMs: number;
  readonly #heartbeatMs: number;
  readonly #entries = new Map<string, Entry>();
  /** Moves on every notification, loss and reconnection: a lookup keeps its answer only if it did not move meanwhile. */
  #generation = 0;
  #listener: pg.Client | undefined;
  #trusted = false;
  #stopped = false;
  #retry: NodeJS.Timeout | undefined;
  #heartbeat: NodeJS.Timeout | undefined;

  constructor(db: pg.Pool, options: SessionCacheOptions = {}) {
    this.#db = db;
    this.#ttlMs = options.ttlMs ?? 30_000;
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#reconnectMs = options.reconnectMs ?? 1_000;
    this.#heartbeatMs = options.heartbeatMs ?? 5_000;
  }

  /** True while the listening connection is up: only then is a held session answered from memory. */
  get trusted(): boolean {
    return this.#trusted;
  }

  /** How many sessions are held now. */
  get size(): number {
    return this.#entries.size;
  }

  /** Connects the listener (without throwing: a database not reachable yet only means no caching until it is). */
  async start(): Promise<void> {
    await this.#connect();
    this.#heartbeat = setInterval(() => void this.#beat(), this.#heartbeatMs);
    this.#heartbeat.unref();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#retry);
    clearInterval(this.#heartbeat);
    const listener = this.#listener;
    this.#drop();
    await listener?.end().catch(() => {});
  }

  /** The caller whose token has this hash, or undefined when it is unknown, expired, revoked or its user disabled. */
  async lookup(hash: Buffer): Promise<Caller | undefined> {
    const key = hash.toString('hex');
    if (this.#trusted) {
      const held = this.#entries.get(key);
      if (held !== undefined) {
        if (held.until > Date.now()) return held.caller;
        this.#entries.delete(key);
      }
    }
    const generation = this.#generation;
    const found = await sessionByToken(this.#db, hash);
    if (found && this.#trusted && generation === this.#generation) {
      if (this.#entries.size >= this.#maxEntries) this.#entries.clear();
      this.#entries.set(key, { caller: found.caller, userId: found.caller.userId, until: Math.min(Date.now() + this.#ttlMs, found.expiresAt.getTime()) });
    }
    return found?.caller;
  }

  /** Forgets one token here at once (this process's own logout, before the notification comes back). */
  forget(hash: Buffer): void {
    this.#generation++;
    this.#entries.delete(hash.toString('hex'));
  }

  /** Forgets every token of a user here at once (this process changed the user; the others hear it from the database). */
  forgetUser(userId: string | number): void {
    this.#notified(`u:${userId}`);
  }

  #notified(payload: string | undefined): void {
    this.#generation++;
    if (payload?.startsWith('t:')) {
      this.#entries.delete(payload.slice(2));
    } else if (payload?.startsWith('u:')) {
      const userId = payload.slice(2);
      for (const [key, e] of this.#entries) if (e.userId === userId) this.#entries.delete(key);
    } else {
      this.#entries.clear();
    }
  }

  /** Nothing held is trusted any more. */
  #drop(): void {
    this.#trusted = false;
    this.#generation++;
    this.#entries.clear();
    this.#listener = undefined;
  }

  async #connect(): Promise<void> {
    if (this.#stopped) return;
    const client = new pg.Client({ ...this.#db.options, keepAlive: true, application_name: LISTENER_NAME });
    this.#listener = client;
    client.on('notification', (m) => {
      if (m.channel === SESSION_CHANNEL && client === this.#listener) this.#notified(m.payload);
    });
    client.on('error', () => this.#lost(client));
    client.on('end', () => this.#lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${SESSION_CHANNEL}`);
    } catch {
      this.#lost(client);
      return;
    }
    if (client !== this.#listener) return; // lost while connecting
    // Whatever was looked up before the LISTEN took hold may have missed a notification.
    this.#generation++;
    this.#entries.clear();
    this.#trusted = true;
  }

  #lost(client: pg.Client): void {
    if (client !== this.#listener) return;
    this.#drop();
    client.end().catch(() => {});
    if (this.#stopped) return;
    clearTimeout(this.#retry);
    this.#retry = setTimeout(() => void this.#connect(), this.#reconnectMs);
    this.#retry.unref();
  }

  /** A connection can die without a word (a network cut): one that does not answer in time is dropped. */
  async #beat(): Promise<void> {
    const client = this.#listener;
    if (!client || !this.#trusted) return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('no answer')), this.#heartbeatMs);
    });
    try {
      await Promise.race([client.query('SELECT 1'), late]);
    } catch {
      this.#lost(client);
    } finally {
      clearTimeout(timer);
    }
  }
}
