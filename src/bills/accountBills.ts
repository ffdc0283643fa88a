// The bill rows of Post Account bills (migration 060): no subscription_id, the groups in
// `groups`, every group's lines one after the other in `lines`. Written like a Post
// Subscription chunk's bills (store.ts): row text built before the write transaction,
// then one COPY. Lines and source in their stored (packed) form, as a subscription bill's
// (src/billLines/storedLines.ts); the groups as they are.
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { AccountBill } from '../rating/index.ts';
import { BILL_COPY_COLUMNS, copyText, slices } from './store.ts';
import { savePrototypes, type StoredPacker } from '../billLines/storedLines.ts';

/** An account bill's COPY row (columns BILL_COPY_COLUMNS, then groups) in two parts around its number. */
export function accountBillRowParts(
  packer: StoredPacker,
  appCode: number,
  termId: string,
  billDate: string,
  dueDate: string,
  b: { accountId: string; bill: AccountBill; source: unknown },
): [string, string] {
  const r = b.bill;
  return [
    `${appCode}\t${termId}\t\\N\t${b.accountId}\t`,
    `\t${billDate}\t${dueDate}\t${r.activePeriod.start}\t${r.activePeriod.end}\t${r.charges}\t${r.tax}\t${r.total}\t` +
      `${r.balanceBroughtForward}\t${r.totalDue}\t${r.estimated ? 't' : 'f'}\t${copyText(packer.pack(r.lines))}\t` +
      `${copyText(packer.pack(b.source))}\t${copyText(JSON.stringify(r.groups))}\n`,
  ];
}

/** The columns of accountBillRowParts' rows. */
export const ACCOUNT_BILL_COPY_COLUMNS = `${BILL_COPY_COLUMNS}, groups`;

/** Writes account bill rows (accountBillRowParts joined by their numbers) with one COPY. */
export async function copyAccountBills(client: pg.PoolClient, rows: Iterable<string>, packer: StoredPacker): Promise<void> {
  await savePrototypes(client, packer);
  const stream = client.query(copyFrom(`COPY bill (${ACCOUNT_BILL_COPY_COLUMNS}) FROM STDIN`));
  await pipeline(Readable.from(slices(rows)), stream);
}

/** A stored account bill's group (bill.groups). */
export type StoredGroup = AccountBill['groups'][number];

/** Each group with its own lines, from the stored flat lines (lineCount each, in order). */
export function splitGroups<L>(lines: L[], groups: StoredGroup[]): { group: StoredGroup; lines: L[] }[] {
  const out: { group: StoredGroup; lines: L[] }[] = [];
  let at = 0;
  for (const group of groups) {
    out.push({ group, lines: lines.slice(at, at + group.lineCount) });
    at += group.lineCount;
  }
  return out;
}
