// verify-bill: one stored bill of the caller's app rated again and compared.
import type { Caller } from '../auth/roles.ts';
import type { Queryable } from '../db/pool.ts';
import { notFound, validationFailed } from '../errors.ts';
import { STORED_BILL_COLUMNS, verifyBills, type BillVerification, type StoredBill } from './verifyBills.ts';
import type { VerifyBillData } from './schemas.ts';

export async function verifyBill(db: Queryable, caller: Caller, data: VerifyBillData): Promise<BillVerification> {
  if ((data.billID === undefined) === (data.billNumber === undefined)) {
    throw validationFailed([{ path: 'data.billID', message: 'give billID or billNumber, one of them' }]);
  }
  const r = await db.query<StoredBill>(
    `SELECT ${STORED_BILL_COLUMNS} FROM bill b JOIN app a ON a.app_code = b.app_code
      WHERE b.app_code = $1 AND ($2::bigint IS NULL OR b.bill_id = $2) AND ($3::bigint IS NULL OR b.bill_number = $3)`,
    [caller.appCode, data.billID ?? null, data.billNumber ?? null],
  );
  const bill = r.rows[0];
  if (bill === undefined) throw notFound('bill', data.billID !== undefined ? 'data.billID' : 'data.billNumber');
  return (await verifyBills(db, [bill]))[0]!;
}
