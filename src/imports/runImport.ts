// One bulk import: rows from a CSV stream or a JSON array, checked by the same rules as
// the single-record operations, written in chunks with COPY inside ONE transaction that
// commits only if every row is good. A bad row does not stop the reading: the rest are
// still checked (and written, so that a duplicate further down is still found), and at
// the end everything is rolled back and each bad row reported by row, column and reason.
// Memory stays flat: only one chunk of rows is held at a time; duplicates across chunks
// are found by the database, which sees this transaction's own earlier chunks.
import type pg from 'pg';
import { AppError, type ErrorDetail } from '../errors.ts';
import { checkAccount, type AccountFields } from '../accounts/rules.ts';
import { checkSubscription, type CheckedSubscription, type Issue } from '../subscriptions/check.ts';
import { loadBatchCodes, loadTemplates, type TemplateContext } from '../templates/context.ts';
import { carryAgain } from '../readings/carry.ts';
import { futureReading, lockSubscriptions, writeReadings, type LockedSubscriptions, type MeterSubscription, type ReadingWrite } from '../readings/write.ts';
import { NOTE_MAX, READING_KINDS, SOURCE } from '../readings/rules.ts';
import { effectiveReadingsSince, READING_COLUMNS, type MeterSince } from '../readings/store.ts';
import { analyzeTables } from '../db/statistics.ts';
import { allocateIds, copyInto, copyLine, identitySequence, startCopy } from '../db/copy.ts';
import { SourceError, type ImportRow } from './rows.ts';
import { finishJob, insertJob, updateProgress, type ImportKind, type Progress, type RowError } from './store.ts';
import type { Queryable } from '../db/pool.ts';
import { recordEvent } from '../events/record.ts';
import { appToday, parseRecordDate } from '../calendar/calendar.ts';
import { chargeDeposits } from '../deposits/deposits.ts';

/**
 * import.finished (docs/webhooks.md), in the import's transaction: only an import that
 * wrote its rows makes one. A refused import or a dry run changes no data, so it makes
 * no event either (import_job records it).
 */
function recordFinished(tx: Queryable, appCode: number, importId: string, kind: ImportKind, p: Progress): Promise<string> {
  return recordEvent(tx, appCode, 'import.finished', `import:${importId}`, {
    kind,
    importID: Number(importId),
    status: 'succeeded',
    rows: p.rowsRead,
    accounts: p.accounts,
    subscriptions: p.subscriptions,
    readings: p.readings,
  });
}

export const MAX_REPORTED_ERRORS = 100;
const CHUNK_ROWS = 5000;
const PROGRESS_EVERY_MS = 500;

export type ImportCaller = { appCode: number; email: string };
export type ImportOptions = {
  kind: ImportKind;
  format: 'csv' | 'json';
  rows: AsyncIterable<ImportRow> | Iterable<ImportRow>;
  fileName?: string | null;
  dryRun?: boolean;
  bytesTotal?: number | null;
  bytesRead?: () => number;
  onProgress?: (p: Progress) => void;
  /** Called with the job id as soon as it exists (before any row is read). */
  onStart?: (importId: string) => void;
  chunkRows?: number;
};
export type ImportOutcome = { importId: string; status: 'succeeded' | 'validated'; progress: Progress };

const DOCUMENT_COLUMNS = ['subscription_id', 'app_code', 'name', 'reference', 'document_date', 'recorded_by'];
const ACCOUNT_COLUMNS = ['account_id', 'app_code', 'account_number', 'name', 'email', 'phone', 'address', 'delivery_preference', 'created_by', 'modified_by'];
const SUBSCRIPTION_COLUMNS = [
  'subscription_id',
  'app_code',
  'account_id',
  'service_id',
  'batch_id',
  'connection_inputs',
  'unmetered_inputs',
  'start_date',
  'end_date',
  'created_by',
  'modified_by',
];
const SUBSCRIPTION_FIELDS = ['serviceCode', 'batchCode', 'startDate', 'endDate', 'readingDate'];
const absent = (v: unknown) => v === undefined || v === null || v === '';
const SOURCE_RE = new RegExp(SOURCE.pattern);

type Context = {
  client: pg.PoolClient;
  appCode: number;
  by: string;
  templatesByCode: Map<string, TemplateContext>;
  templatesById: Map<string, TemplateContext>;
  batches: Map<string, string>;
  accountSeq: string;
  subscriptionSeq: string;
  report: (row: ImportRow, issue: ErrorDetail) => void;
  progress: Progress;
  /** New accounts are COPYed without a lookup first, until a number is found taken (writeAccountRows). */
  optimistic: boolean;
  /** The last readings chunk's good readings, as COPY lines: written once the next chunk has locked its meters (readingsChunk). */
  pendingReadings: string[] | null;
  /** The subscriptions the last readings chunk locked. */
  pendingSubscriptions: ReadonlySet<string>;
  /** The app's today: no opening reading is dated after it. */
  today: string;
};

export async function runImport(db: pg.Pool, caller: ImportCaller, o: ImportOptions): Promise<ImportOutcome> {
  const dryRun = o.dryRun ?? false;
  const importId = await insertJob(db, caller.appCode, { kind: o.kind, format: o.format, fileName: o.fileName ?? null, dryRun, bytesTotal: o.bytesTotal ?? null }, caller.email);
  o.onStart?.(importId);
  const progress: Progress = { rowsRead: 0, bytesRead: 0, accounts: 0, subscriptions: 0, readings: 0, errorCount: 0 };
  const errors: RowError[] = [];
  const add = (e: RowError) => {
    progress.errorCount++;
    if (errors.length < MAX_REPORTED_ERRORS) errors.push(e);
  };
  const report = (row: ImportRow, issue: ErrorDetail) =>
    add({ row: row.row, column: issue.path.startsWith(row.prefix) ? issue.path.slice(row.prefix.length) : '', path: issue.path, message: issue.message });

  let lastSaved = Date.now();
  const tick = async (force = false) => {
    progress.bytesRead = o.bytesRead?.() ?? 0;
    o.onProgress?.(progress);
    if (force || Date.now() - lastSaved >= PROGRESS_EVERY_MS) {
      lastSaved = Date.now();
      await updateProgress(db, importId, progress);
    }
  };

  const client = await db.connect();
  let failure: unknown;
  // The chunk being written while the next is read; awaited before the transaction ends either way.
  let writing: Promise<void> = Promise.resolve();
  try {
    await client.query('BEGIN');
    // Each chunk looks a few thousand keys up among millions of rows (accounts by number,
    // subscriptions by account, a meter's effective readings). At the default
    // random_page_cost (4, a spinning disk's) the planner hashed the whole account table,
    // or scanned every reading, once per chunk: an import of N rows cost N²/5000 row
    // visits (docs/accounts.md, "Bulk import: where the time goes"). A probe of an index
    // is what these lookups need; the setting lasts until this transaction ends.
    await client.query('SET LOCAL random_page_cost = 1.1');
    const templates = await loadTemplates(client, caller.appCode);
    const ctx: Context = {
      client,
      appCode: caller.appCode,
      by: caller.email,
      templatesByCode: new Map(templates.map((t) => [t.serviceCode, t])),
      templatesById: new Map(templates.map((t) => [t.serviceId, t])),
      batches: await loadBatchCodes(client, caller.appCode),
      accountSeq: await identitySequence(client, 'account', 'account_id'),
      subscriptionSeq: await identitySequence(client, 'subscription', 'subscription_id'),
      report,
      progress,
      optimistic: true,
      pendingReadings: null,
      pendingSubscriptions: new Set(),
      today: await appToday(client, caller.appCode),
    };
    const size = o.chunkRows ?? CHUNK_ROWS;
    // While the database takes one chunk, the next is read and checked: the writes of
    // one chunk and the parsing of the next overlap instead of taking turns.
    const nextChunk = async (rows: ImportRow[]) => {
      if (o.kind === 'readings') {
        const refs = findMeters(db, ctx, rows);
        refs.catch(() => {}); // awaited by its chunk
        await writing;
        writing = refs.then((r) => readingsChunk(ctx, rows, r));
      } else {
        const { good, found } = checkAccountRows(ctx, o.kind, rows);
        // A subscriptions import writes no account, so the pool sees the accounts its own
        // transaction would, and the chunk's are looked up while the chunk before is written;
        // so are the chunk's new ids drawn (allocateIds).
        const accounts = o.kind === 'subscriptions' ? findAccounts(db, ctx.appCode, good) : undefined;
        accounts?.catch(() => {}); // awaited by its chunk
        const ids = chunkIds(db, ctx, o.kind, good);
        ids.catch(() => {}); // awaited by its chunk
        await writing;
        writing = writeAccountRows(ctx, o.kind, good, found, ids, accounts);
      }
      // Observed now, awaited later: a failed write must not count as an unhandled rejection.
      writing.catch(() => {});
    };
    let chunk: ImportRow[] = [];
    for await (const row of o.rows) {
      progress.rowsRead++;
      chunk.push(row);
      if (chunk.length >= size) {
        await nextChunk(chunk);
        chunk = [];
        await tick();
      }
    }
    if (chunk.length > 0) await nextChunk(chunk);
    await writing;
    await writePendingReadings(ctx);
    // A moved subscription's carried reading follows the old one's readings until it is billed
    // (readings/carry.ts): asked once for the app's moves, which are few, not per row.
    if (o.kind === 'readings' && progress.errorCount === 0 && !dryRun) await carryAgain(client, caller.appCode, caller.email, 'all');
    if (progress.errorCount === 0 && progress.rowsRead === 0) {
      add({ row: 0, column: '', path: o.format === 'csv' ? 'rows' : 'data.rows', message: 'there are no rows to import' });
    }
    if (progress.errorCount > 0 || dryRun) await client.query('ROLLBACK');
    else {
      // The event commits with the rows it announces.
      await recordFinished(client, caller.appCode, importId, o.kind, progress);
      await client.query('COMMIT');
    }
  } catch (err) {
    failure = err;
    // A chunk still at work (the source failed while it was written) finishes, or fails, inside
    // the transaction before it is rolled back: rolled back first, the chunk's later statements
    // (the COPY of the chunk before it) ran outside any transaction and committed, on a
    // connection already back in the pool (a reviewer's test: a failed import left readings).
    await writing.catch(() => {});
    await client.query('ROLLBACK').catch(() => {});
    if (err instanceof SourceError) for (const e of err.errors) add(e);
  } finally {
    client.release();
  }
  progress.bytesRead = o.bytesRead?.() ?? progress.bytesRead;

  if (failure !== undefined && !(failure instanceof SourceError)) {
    // 23505: a unique row written meanwhile; CONFLICT: readings/write.ts broke a lock circle (40P01).
    const concurrent = ['23505', 'CONFLICT'].includes((failure as { code?: string }).code ?? '');
    // The client went away mid-upload: its request stream ends with 'aborted' (ECONNRESET). Not
    // an internal error: it was logged as one, and the import recorded as one (an attacker's test).
    const interrupted = (failure as { code?: string }).code === 'ECONNRESET' || (failure as { message?: string }).message === 'aborted';
    const zero = { ...progress, accounts: 0, subscriptions: 0, readings: 0 };
    const why = concurrent ? 'a row was written meanwhile by another import or request' : interrupted ? 'the upload was interrupted before the end of the file' : 'the import stopped on an internal error';
    await finishJob(db, importId, 'failed', zero, errors, why).catch(() => {});
    if (concurrent) {
      throw new AppError('CONFLICT', 'Another import or request wrote one of these records meanwhile; nothing of this import was written. Retry it.');
    }
    if (interrupted) throw new AppError('MALFORMED_REQUEST', 'The upload ended before the file did; nothing of this import was written. Send the file again.');
    throw failure;
  }
  if (progress.errorCount > 0) {
    const zero = { ...progress, accounts: 0, subscriptions: 0, readings: 0 };
    // Problems, not rows: a row may have several (an officer read 21 bad rows in a file of 20).
    const message = `${progress.errorCount} problem(s) in its rows; nothing of this import was written.`;
    await finishJob(db, importId, 'failed', zero, errors, message);
    o.onProgress?.(zero);
    throw new AppError(
      'VALIDATION_FAILED',
      `The import has ${message}${progress.errorCount > errors.length ? ` The first ${errors.length} are listed.` : ''}`,
      errors.map((e) => ({ path: e.path, message: e.message })),
    );
  }
  // Only the tables written: a file of accounts alone does not sample millions of readings.
  const written = { account: progress.accounts, subscription: progress.subscriptions, reading: progress.readings };
  if (!dryRun) await analyzeTables(db, Object.keys(written).filter((t) => written[t as keyof typeof written] > 0));
  const status = dryRun ? 'validated' : 'succeeded';
  await finishJob(db, importId, status, progress, [], dryRun ? 'every row is good; nothing was written (dry run)' : 'every row was written');
  o.onProgress?.(progress);
  return { importId, status, progress };
}

/** A problem of a row, reported once its chunk is done. */
type Found = { row: ImportRow; issue: ErrorDetail };
type GoodRow = { row: ImportRow; account?: AccountFields; accountNumber: string; sub: CheckedSubscription | null };

/** The checks of accounts (each with an optional subscription and its opening readings) or subscriptions that need no database: the good rows, and the problems of the others. */
function checkAccountRows(ctx: Context, kind: ImportKind, rows: ImportRow[]): { good: GoodRow[]; found: Found[] } {
  const good: GoodRow[] = [];
  const found: Found[] = [];
  const firstRow = new Map<string, number>();
  for (const row of rows) {
    const issues: Issue[] = [];
    const account = kind === 'accounts' ? checkAccount(row.get, row.at, issues) : null;
    let accountNumber = account?.accountNumber;
    if (kind === 'subscriptions') {
      const n = row.get('accountNumber');
      if (absent(n)) issues.push({ path: row.at('accountNumber'), message: 'is required' });
      else if (typeof n !== 'string') issues.push({ path: row.at('accountNumber'), message: 'must be a string' });
      else accountNumber = n;
    }
    const wantsSub =
      kind === 'subscriptions' || SUBSCRIPTION_FIELDS.some((f) => !absent(row.get(f))) || row.connection !== undefined || row.unmetered !== undefined || row.readings !== undefined || row.documents !== undefined;
    const sub = wantsSub ? checkSubscription(row, ctx.templatesByCode, ctx.batches, issues) : null;
    if (sub !== null && sub.readings.length > 0 && sub.readingDate > ctx.today) issues.push({ path: row.at(absent(row.get('readingDate')) ? 'startDate' : 'readingDate'), message: futureReading(ctx.today) });
    if (kind === 'accounts' && accountNumber !== undefined) {
      const first = firstRow.get(accountNumber);
      if (first !== undefined) issues.push({ path: row.at('accountNumber'), message: `appears twice in this file (also on row ${first})` });
      else firstRow.set(accountNumber, row.row);
    }
    for (const p of row.problems) found.push({ row, issue: p });
    for (const i of issues) found.push({ row, issue: i });
    if (issues.length > 0 || row.problems.length > 0 || accountNumber === undefined) continue;
    good.push({ row, account: account ?? undefined, accountNumber, sub });
  }
  return { good, found };
}

/**
 * Writes a chunk of accounts (with their subscriptions) or subscriptions. New accounts
 * are written optimistically: the unique key on (app_code, account_number) checks every
 * number as the COPY inserts it, so a lookup first would probe that index twice for
 * every row (issue 15: the lookup was 3.5 s of a 400,000-account import beside the
 * COPY's 4.8 s, and grew faster than the rows). The COPY runs inside a savepoint; when
 * a number is taken (in the app, or by an earlier chunk of this file) the chunk is
 * rolled back to it and checked precisely, row by row, and so is every chunk after it:
 * the import will be rolled back anyway, and a file of numbers taken would otherwise pay
 * a failed COPY per chunk. Subscriptions always look their accounts up: they need the
 * ids, and whether each account is closed.
 */
async function writeAccountRows(ctx: Context, kind: ImportKind, good: GoodRow[], found: Found[], ids: Promise<ChunkIds>, accounts?: Promise<AccountsByNumber>): Promise<void> {
  await writeGoodRows(ctx, kind, good, found, await ids, accounts);
  // The chunk's problems in the file's order, those of its checks and its write together
  // (a taken number is known only once its chunk is written).
  found.sort((a, b) => a.row.row - b.row.row);
  for (const f of found) ctx.report(f.row, f.issue);
}

async function writeGoodRows(ctx: Context, kind: ImportKind, good: GoodRow[], found: Found[], ids: ChunkIds, accounts?: Promise<AccountsByNumber>): Promise<void> {
  if (good.length === 0) return;
  if (kind === 'accounts' && ctx.optimistic) {
    await ctx.client.query('SAVEPOINT chunk');
    try {
      await copyAccountRows(ctx, kind, good, ids);
      await ctx.client.query('RELEASE SAVEPOINT chunk');
      return;
    } catch (err) {
      if (!isTakenNumber(err)) throw err;
      await ctx.client.query('ROLLBACK TO SAVEPOINT chunk');
      ctx.optimistic = false;
    }
  }
  await copyAccountRows(ctx, kind, checkAgainstDatabase(kind, good, found, await (accounts ?? findAccounts(ctx.client, ctx.appCode, good))), ids);
}

/** Ids for a chunk's good rows: an account's for each of an accounts import, a subscription's for each that has one. */
type ChunkIds = { accounts: string[]; subscriptions: string[] };

async function chunkIds(db: Queryable, ctx: Context, kind: ImportKind, good: GoodRow[]): Promise<ChunkIds> {
  // One after the other: an import holds its own connection and takes at most one more of
  // the pool for its ids (beside a subscriptions chunk's accounts), so many imports at once
  // do not empty the pool the API's requests share.
  const accounts = await allocateIds(db, ctx.accountSeq, kind === 'accounts' ? good.length : 0);
  const subscriptions = await allocateIds(db, ctx.subscriptionSeq, good.filter((g) => g.sub !== null).length);
  return { accounts, subscriptions };
}

type AccountsByNumber = Map<string, { account_id: string; status: string }>;

/** The chunk's accounts that exist, by number: on the import's connection for an accounts import, which sees its own earlier chunks. */
async function findAccounts(db: Queryable, appCode: number, good: GoodRow[]): Promise<AccountsByNumber> {
  const r = await db.query<{ account_number: string; account_id: string; status: string }>(
    'SELECT account_number, account_id, status FROM account WHERE app_code = $1 AND account_number = ANY($2::text[])',
    [appCode, good.map((g) => g.accountNumber)],
  );
  return new Map(r.rows.map((x) => [x.account_number, x]));
}

/** PostgreSQL refused a row because its account number is in the app already. */
const isTakenNumber = (err: unknown) =>
  (err as { code?: string }).code === '23505' && (err as { constraint?: string }).constraint === 'account_app_code_account_number_key';

/** The precise check: numbers taken (accounts), or accounts missing or closed (subscriptions), each reported at its row. */
function checkAgainstDatabase(kind: ImportKind, good: GoodRow[], found: Found[], existing: AccountsByNumber): Writable[] {
  const writable: Writable[] = [];
  for (const g of good) {
    const e = existing.get(g.accountNumber);
    const path = g.row.at('accountNumber');
    if (kind === 'accounts') {
      if (e) found.push({ row: g.row, issue: { path, message: 'is the number of an account that exists already (in the app, or earlier in this file)' } });
      else writable.push(g);
    } else if (!e) found.push({ row: g.row, issue: { path, message: 'no account with this number' } });
    else if (e.status !== 'active') found.push({ row: g.row, issue: { path, message: 'is a closed account, which takes no new subscriptions' } });
    else writable.push({ ...g, accountId: e.account_id });
  }
  return writable;
}

type Writable = GoodRow & { accountId?: string };

/** COPYs the rows (new accounts get their ids here; subscriptions come with their account's), their subscriptions, opening readings and documents. */
async function copyAccountRows(ctx: Context, kind: ImportKind, writable: Writable[], ids: ChunkIds): Promise<void> {
  const { client, appCode, by } = ctx;
  const accountLines: string[] = [];
  if (kind === 'accounts') {
    // The rows written are the chunk's good ones or fewer: the ids drawn for them suffice.
    writable.forEach((g, i) => {
      g.accountId = ids.accounts[i]!;
      const a = g.account!;
      accountLines.push(copyLine([g.accountId, appCode, a.accountNumber, a.name, a.email, a.phone, a.address, a.deliveryPreference, by, by]));
    });
  }
  const withSub = writable.filter((g) => g.sub !== null);
  const subIds = ids.subscriptions;
  const subLines: string[] = [];
  const readingLines: string[] = [];
  const documentLines: string[] = [];
  withSub.forEach((g, i) => {
    const s = g.sub!;
    const id = subIds[i]!;
    subLines.push(
      copyLine([id, appCode, g.accountId!, s.template.serviceId, s.batchId, JSON.stringify(s.connection), JSON.stringify(s.unmetered), s.startDate, s.endDate, by, by]),
    );
    for (const r of s.readings) readingLines.push(copyLine([appCode, id, r.inputCode, s.readingDate, r.value, 'actual', 'import', null, null, by]));
    for (const d of s.documents) documentLines.push(copyLine([id, appCode, d.name, d.reference, d.date, by]));
  });
  await copyInto(client, 'account', ACCOUNT_COLUMNS, accountLines);
  await copyInto(client, 'subscription', SUBSCRIPTION_COLUMNS, subLines);
  await copyInto(client, 'reading', READING_COLUMNS, readingLines);
  await copyInto(client, 'subscription_document', DOCUMENT_COLUMNS, documentLines);
  // Connected, so their templates' security deposits are charged (src/deposits/).
  await chargeDeposits(client, appCode, withSub.map((g, i) => ({ subscriptionId: subIds[i]!, accountId: g.accountId!, serviceId: g.sub!.template.serviceId })), by);
  ctx.progress.accounts += accountLines.length;
  ctx.progress.subscriptions += subLines.length;
  ctx.progress.readings += readingLines.length;
}

/** Which subscription each row of a readings chunk names, as far as the committed accounts and subscriptions say. */
type MeterRefs = {
  refOf: Map<ImportRow, { id?: string; pair?: string }>;
  byId: Set<string>;
  byPair: Map<string, string[]>;
  /** Problems of reference found while reading the rows, reported in order with the rest. */
  found: Found[];
};

/**
 * The subscriptions a readings chunk names: by subscriptionID, or by accountNumber +
 * serviceCode looked up among the committed accounts. Asked on a connection of the pool,
 * not the import's: a readings import writes no account or subscription, so its own
 * transaction would see the same rows, and the lookups of the next chunk run while the
 * import's connection COPYs this one (issue 15: they were a fifth of the import). The
 * lock (readingsChunk) reads each subscription again in the import's transaction: one
 * terminated in between is treated as not found.
 */
async function findMeters(db: Queryable, ctx: Context, rows: ImportRow[]): Promise<MeterRefs> {
  const byId = new Set<string>();
  const pairs: [string, string][] = [];
  const refOf = new Map<ImportRow, { id?: string; pair?: string }>();
  const found: Found[] = [];
  for (const row of rows) {
    const id = row.get('subscriptionID');
    if (!absent(id)) {
      const text = typeof id === 'number' && Number.isSafeInteger(id) ? String(id) : typeof id === 'string' && /^[1-9][0-9]{0,17}$/.test(id) ? id : null;
      if (text === null) found.push({ row, issue: { path: row.at('subscriptionID'), message: 'must be a subscription id (a whole number)' } });
      else {
        byId.add(text);
        refOf.set(row, { id: text });
      }
      continue;
    }
    const a = row.get('accountNumber');
    const s = row.get('serviceCode');
    if (typeof a === 'string' && a !== '' && typeof s === 'string' && s !== '') {
      pairs.push([a, s]);
      refOf.set(row, { pair: `${a}\u0001${s}` });
    } else found.push({ row, issue: { path: row.at('subscriptionID'), message: 'is required, or accountNumber and serviceCode' } });
  }
  const byPair = new Map<string, string[]>();
  if (pairs.length > 0) {
    // Two lookups by = ANY of their keys (account numbers, then account ids): an index
    // probe per key whatever the planner's costs. The one join of unnest(pairs) this
    // replaced was planned as a hash of the whole account table, built again for every
    // chunk (issue 15: N²/5000 rows read). The pairs are matched here.
    const accounts = await db.query<{ account_id: string; account_number: string }>(
      'SELECT account_id, account_number FROM account WHERE app_code = $1 AND account_number = ANY($2::text[])',
      [ctx.appCode, [...new Set(pairs.map((p) => p[0]))]],
    );
    const numberOf = new Map(accounts.rows.map((x) => [x.account_id, x.account_number]));
    const r = await db.query<{ account_id: string; service_id: string; subscription_id: string }>(
      "SELECT account_id, service_id, subscription_id FROM subscription WHERE account_id = ANY($1::bigint[]) AND status <> 'terminated'",
      [[...numberOf.keys()]],
    );
    const asked = new Set(pairs.map((p) => `${p[0]}\u0001${p[1]}`));
    for (const s of r.rows) {
      const k = `${numberOf.get(s.account_id)}\u0001${ctx.templatesById.get(s.service_id)?.serviceCode}`;
      // Another of the chunk's service codes on this account: not asked for, not locked.
      if (!asked.has(k)) continue;
      const list = byPair.get(k) ?? [];
      list.push(s.subscription_id);
      byPair.set(k, list);
    }
  }
  return { refOf, byId, byPair, found };
}

/** Readings of existing subscriptions, each fitted among the meter's readings like capture-readings does. */
async function readingsChunk(ctx: Context, rows: ImportRow[], refs: MeterRefs): Promise<void> {
  const { client, appCode } = ctx;
  const { refOf, byId, byPair } = refs;
  // Those named by accountNumber + serviceCode were found first, and are locked with those
  // named by id, by the readings' owner: one lock for both ways (issue 9, defect 1).
  const subs = await lockSubscriptions(client, appCode, [...byId, ...[...byPair.values()].flat()]);
  // The last chunk's readings are written while this one is checked here: one after the
  // other, the checks left the database idle and the COPY this process (issue 15). So what
  // the checks ask of the database is asked first: the app's today, and the meters'
  // effective readings (before that COPY, so a meter read in both chunks has its last
  // chunk's readings written first).
  const today = await appToday(client, appCode);
  if (ctx.pendingReadings !== null && [...subs.keys()].some((id) => ctx.pendingSubscriptions.has(id))) await writePendingReadings(ctx);
  const history = effectiveReadingsSince(client, metersSince(rows, refs, subs));
  history.catch(() => {}); // awaited by writeReadings
  const previous = await startPendingReadings(ctx);
  const writes: ReadingWrite[] = [];
  const skip = new Set<number>();
  const rowOf: ImportRow[] = [];
  const found: Found[] = [...refs.found];
  for (const row of rows) {
    for (const p of row.problems) ctx.report(row, p);
    const ref = refOf.get(row);
    if (!ref) continue;
    let s: MeterSubscription | undefined;
    if (ref.id !== undefined) {
      s = subs.get(ref.id);
      if (!s) {
        found.push({ row, issue: { path: row.at('subscriptionID'), message: 'no subscription with this id' } });
        continue;
      }
    } else {
      // Terminated meanwhile (between the lookup and the lock): as if not found.
      const live = (byPair.get(ref.pair!) ?? []).map((id) => subs.get(id)).filter((x) => x !== undefined && x.status !== 'terminated');
      if (live.length !== 1) {
        found.push({
          row,
          issue: {
            path: row.at('serviceCode'),
            message: live.length === 0 ? 'the account has no subscription to this pricing template that is not terminated' : `the account has ${live.length} subscriptions to this pricing template; give subscriptionID`,
          },
        });
        continue;
      }
      s = live[0]!;
    }
    const issues: ErrorDetail[] = [];
    const inputCode = row.get('inputCode');
    const meter = typeof inputCode === 'string' ? ctx.templatesById.get(s.service_id)?.meteredInputs.find((m) => m.code === inputCode) : undefined;
    if (!meter) issues.push({ path: row.at('inputCode'), message: absent(inputCode) ? 'is required' : "is not a metered input of the subscription's pricing template" });
    const kind = absent(row.get('kind')) ? 'actual' : row.get('kind');
    if (typeof kind !== 'string' || !(READING_KINDS as readonly string[]).includes(kind)) issues.push({ path: row.at('kind'), message: 'must be actual or estimated' });
    const source = absent(row.get('source')) ? 'import' : row.get('source');
    if (typeof source !== 'string' || source.length > SOURCE.maxLength || !SOURCE_RE.test(source))
      issues.push({ path: row.at('source'), message: `must be 1 to ${SOURCE.maxLength} letters, digits and _ . : / - or spaces` });
    const note = absent(row.get('note')) ? null : row.get('note');
    if (note !== null && (typeof note !== 'string' || note.length > NOTE_MAX)) issues.push({ path: row.at('note'), message: `must be text of at most ${NOTE_MAX} characters` });
    for (const issue of issues) found.push({ row, issue });
    if (!meter) continue;
    // A row with other problems is still checked by the owner (its date and value are
    // reported too) but not written.
    const ok = issues.length === 0 && row.problems.length === 0;
    rowOf.push(row);
    writes.push({
      subscriptionId: s.subscription_id,
      meter,
      readingDate: row.get('readingDate'),
      value: row.get('value'),
      kind: ok ? (kind as string) : 'actual',
      source: ok ? (source as string) : 'import',
      note: ok ? (note as string | null) : null,
      at: (f) => row.at(f),
    });
    if (!ok) skip.add(writes.length - 1);
  }
  const out = await writeReadings(client, appCode, ctx.by, subs, writes, { sameDay: 'refuse', write: 'good', bulk: 'lines', skip, today, history });
  await previous?.done;
  ctx.pendingReadings = out.lines ?? null;
  ctx.pendingSubscriptions = new Set(subs.keys());
  for (const i of out.issues) found.push({ row: rowOf[i.index]!, issue: { path: i.path, message: i.message } });
  // In the order of the file, each row's problems in the order they were found.
  found.sort((a, b) => a.row.row - b.row.row);
  for (const f of found) ctx.report(f.row, f.issue);
}

/**
 * The meters a readings chunk writes, each with the day of its earliest reading in the chunk:
 * the history they are fitted against starts before it (effectiveReadingsSince). A row whose
 * date cannot be read is refused, not fitted; a row naming an account's template is counted
 * for each of its subscriptions that the lock found (one of them is the row's, or none).
 */
function metersSince(rows: ImportRow[], refs: MeterRefs, subs: LockedSubscriptions): MeterSince[] {
  const since = new Map<string, MeterSince>();
  for (const row of rows) {
    const ref = refs.refOf.get(row);
    const inputCode = row.get('inputCode');
    if (ref === undefined || typeof inputCode !== 'string') continue;
    const from = parseRecordDate(row.get('readingDate'));
    if (from === null) continue;
    for (const subscriptionId of ref.id !== undefined ? [ref.id] : (refs.byPair.get(ref.pair!) ?? [])) {
      if (!subs.has(subscriptionId)) continue;
      const key = `${subscriptionId}|${inputCode}`;
      const m = since.get(key);
      if (m === undefined) since.set(key, { subscriptionId, inputCode, from });
      else if (from < m.from) m.from = from;
    }
  }
  return [...since.values()];
}

/** Starts the COPY of the readings the last chunk left (readingsChunk), counting them once written. */
async function startPendingReadings(ctx: Context): Promise<{ done: Promise<void> } | null> {
  const lines = ctx.pendingReadings;
  ctx.pendingReadings = null;
  if (lines === null || lines.length === 0) return null;
  const copy = await startCopy(ctx.client, 'reading', READING_COLUMNS, lines);
  const done = copy.done.then(() => void (ctx.progress.readings += lines.length));
  done.catch(() => {}); // awaited by the chunk that started it
  return { done };
}

async function writePendingReadings(ctx: Context): Promise<void> {
  await (await startPendingReadings(ctx))?.done;
}
