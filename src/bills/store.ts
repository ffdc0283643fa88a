// SQL for bills: the bulk write of a chunk's bills (COPY), posting, withdrawal and reads.
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Queryable } from '../db/pool.ts';
import type { RatedBill } from '../rating/index.ts';
import { addBillEntries } from '../ledger/store.ts';
import { savePrototypes, type StoredPacker } from '../billLines/storedLines.ts';

export type NewBill = {
  subscriptionId: string;
  accountId: string;
  bill: RatedBill;
  /** What it was rated from (bill.source, src/billRun/billSource.ts), for verify-bill. */
  source?: unknown;
};

export const BILL_COPY_COLUMNS =
  'app_code, term_id, subscription_id, account_id, bill_number, bill_date, due_date, period_start, period_end, ' +
  'charges, tax, total, balance_brought_forward, total_due, estimated, lines, source';

// COPY's text format gives backslash a meaning; JSON escapes (\" \n \u00e9) must reach
// the server as written, so every backslash is doubled. JSON text has no raw tab or newline.
export const copyText = (s: string) => (s.indexOf('\\') === -1 ? s : s.replaceAll('\\', '\\\\'));

/**
 * A bill's COPY row (columns as BILL_COPY_COLUMNS) in two parts around its number, built
 * before the write transaction so that the transaction, which holds the app's bill-number
 * counter, only streams text. Lines and source in their stored (packed) form: the same
 * packer goes to copyBills / copyRebills, which save its prototypes first.
 */
export function billRowParts(packer: StoredPacker, appCode: number, termId: string, billDate: string, dueDate: string, b: NewBill): [string, string] {
  const r = b.bill;
  return [
    `${appCode}\t${termId}\t${b.subscriptionId}\t${b.accountId}\t`,
    `\t${billDate}\t${dueDate}\t${r.activePeriod.start}\t${r.activePeriod.end}\t${r.charges}\t${r.tax}\t${r.total}\t` +
      `${r.balanceBroughtForward}\t${r.totalDue}\t${r.estimated ? 't' : 'f'}\t${copyText(packer.pack(r.lines))}\t` +
      `${b.source === undefined ? '\\N' : copyText(storedSource(packer, b.source))}\n`,
  ];
}

// A Prepaid bill's source stays plain JSON: the next run finds the advances billed earlier
// with SQL on source.prepaid (billRun/prepaid.ts, the partial index of migration 057).
// Either form reads back through decodeStored.
const storedSource = (packer: StoredPacker, source: unknown): string =>
  typeof source === 'object' && source !== null && (source as { prepaid?: unknown }).prepaid !== undefined ? JSON.stringify(source) : packer.pack(source);

/**
 * Writes rows (billRowParts joined by their numbers) with one COPY. Rows are
 * streamed in slices so a chunk's bills never sit in memory as one huge string.
 */
export async function copyBills(client: pg.PoolClient, rows: Iterable<string>, packer: StoredPacker): Promise<void> {
  await savePrototypes(client, packer);
  const stream = client.query(copyFrom(`COPY bill (${BILL_COPY_COLUMNS}) FROM STDIN`));
  await pipeline(Readable.from(slices(rows)), stream);
}

export function* slices(rows: Iterable<string>): Generator<string> {
  let buf = '';
  for (const row of rows) {
    buf += row;
    if (buf.length > 1 << 20) {
      yield buf;
      buf = '';
    }
  }
  if (buf !== '') yield buf;
}

/** The next `count` bill numbers of the app, taken in the caller's transaction: [first, last]. */
export async function takeBillNumbers(db: Queryable, appCode: number, count: number): Promise<bigint> {
  const r = await db.query<{ last_number: string }>(
    `INSERT INTO bill_number_counter AS c (app_code, last_number) VALUES ($1, $2)
     ON CONFLICT (app_code) DO UPDATE SET last_number = c.last_number + EXCLUDED.last_number
     RETURNING last_number`,
    [appCode, count],
  );
  return BigInt(r.rows[0]!.last_number) - BigInt(count) + 1n;
}

/**
 * Posts a term's draft bills: each becomes 'posted' and adds one ledger entry of its
 * total to its account (the brought-forward balance is in the ledger already), in the
 * caller's transaction. Answers their ids.
 */
export async function postTermBills(db: Queryable, termId: string, by: string): Promise<string[]> {
  const r = await db.query<{ bill_id: string }>(`UPDATE bill SET status = 'posted', posted_at = now() WHERE term_id = $1 AND status = 'draft' RETURNING bill_id`, [termId]);
  const ids = r.rows.map((b) => b.bill_id);
  await addBillEntries(db, ids, by);
  return ids;
}

/** Withdraws a term's draft bills (reverse-term); they keep their numbers. */
export async function withdrawTermBills(db: Queryable, termId: string): Promise<number> {
  const r = await db.query(`UPDATE bill SET status = 'withdrawn', withdrawn_at = now() WHERE term_id = $1 AND status = 'draft'`, [termId]);
  return r.rowCount ?? 0;
}

/**
 * A rebill's COPY (corrections/): a bill run's row (billRowParts, or accountBillRowParts
 * with its `columns`) written posted at once and linked to the cancelled bill it replaces,
 * so the correction writes each bill once instead of writing a draft and updating it.
 */
export async function copyRebills(
  client: pg.PoolClient,
  rows: Iterable<{ parts: [string, string]; number: bigint; correctsBillId: string }>,
  postedAt: string,
  packer: StoredPacker,
  columns = BILL_COPY_COLUMNS,
): Promise<void> {
  await savePrototypes(client, packer);
  const stream = client.query(copyFrom(`COPY bill (${columns}, status, posted_at, corrects_bill_id) FROM STDIN`));
  await pipeline(
    Readable.from(
      slices(
        (function* () {
          for (const r of rows) yield `${r.parts[0]}${r.number}${r.parts[1].slice(0, -1)}\tposted\t${postedAt}\t${r.correctsBillId}\n`;
        })(),
      ),
    ),
    stream,
  );
}
