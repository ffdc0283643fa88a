// Tests that alter a stored bill by hand (a tampered amount, a changed reading) edit the old,
// plain JSON form of bill.lines by path: this writes a bill's lines and source back in that
// form first (src/billLines/storedLines.ts reads both forms alike).
import type pg from 'pg';
import { decodeStored, loadPrototypes } from '../../src/billLines/storedLines.ts';

export async function storeInOldForm(db: pg.Pool, billId: number | string): Promise<void> {
  const r = await db.query<{ lines: unknown; source: unknown }>('SELECT lines, source FROM bill WHERE bill_id = $1', [billId]);
  const b = r.rows[0]!;
  await loadPrototypes(db, [b.lines, b.source]);
  await db.query('UPDATE bill SET lines = $2::json, source = $3::json WHERE bill_id = $1', [
    billId,
    JSON.stringify(decodeStored(b.lines)),
    b.source === null ? null : JSON.stringify(decodeStored(b.source)),
  ]);
}
