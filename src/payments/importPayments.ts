import crypto from 'node:crypto';
import type pg from 'pg';
import { parse } from 'csv-parse/sync';
import { Dec } from '../rating/money.ts';
import { IDENTIFIER_MESSAGE, isIdentifier } from '../primitives.ts';
import { inTransaction } from '../db/pool.ts';
import { AppError, conflict, validationFailed, type ErrorDetail } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import { appMoney, readAmount } from '../ledger/common.ts';
import { readPastDate } from '../calendar/calendar.ts';
import { settleAccounts } from '../settlement/settleAccounts.ts';
import type { ImportInput } from './schemas.ts';
import { recordPaymentsReceived } from './events.ts';
import { recordEvent } from '../events/record.ts';
import { accountIdsByNumber, claimImport, findImportByHash, insertPayments, recordedReferences, type NewPayment } from './store.ts';

export const CSV_COLUMNS = ['accountNumber', 'amount', 'paymentDate', 'reference', 'channel', 'cashAccountID', 'description'] as const;
const REQUIRED = ['accountNumber', 'amount', 'paymentDate', 'reference', 'channel'] as const;
export const MAX_ROWS = 200_000;
/** The first bad rows reported; the message counts them all. */
const MAX_DETAILS = 100;

export type ImportResult = { importId: string; recorded: number; skipped: number; total: string };

type Row = { get: (f: string) => unknown; at: (f: string) => string; number: number };

/**
 * Records a bank statement's payments, all or nothing: every row is checked first and
 * any bad row (a field, an unknown account number, a reference used twice in the file
 * or already recorded) refuses the whole file with each bad row named. The very same
 * file a second time is refused as a CONFLICT. With skipRecorded, rows already recorded
 * with the same account, amount and date are skipped instead (an overlapping
 * statement), and the rest are recorded.
 */
export async function importPayments(db: pg.Pool, caller: Caller, input: ImportInput): Promise<ImportResult> {
  const { rows, format, text } = readRows(input);
  const fileHash = crypto.createHash('sha256').update(format).update('\0').update(text).digest('hex');
  const { minorUnits, today } = await appMoney(db, caller.appCode);

  const issues: ErrorDetail[] = [];
  const checked: (Omit<NewPayment, 'accountId'> & { accountNumber: string; row: Row })[] = [];
  const firstRowOf = new Map<string, number>();
  for (const row of rows) {
    const before = issues.length;
    const text = (f: string, max: number, required: boolean): string | null => {
      const v = row.get(f);
      if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) {
        if (required) issues.push({ path: row.at(f), message: 'is required' });
        return null;
      }
      // A JSON row's text is a string: a number there was turned into text (1e21 became
      // the reference "1e+21", 0.1 + 0.2 a channel; a fuzzer's finding). The amount and the
      // cash account are read as numbers on their own.
      if (typeof v !== 'string' && f !== 'cashAccountID') {
        issues.push({ path: row.at(f), message: 'must be text (a JSON string)' });
        return null;
      }
      const s = String(v).trim();
      if (s.length > max) issues.push({ path: row.at(f), message: `must be at most ${max} characters` });
      return s;
    };
    const accountNumber = text('accountNumber', 64, true);
    const reference = text('reference', 100, true);
    const channel = text('channel', 50, true);
    const description = text('description', 500, false) ?? '';
    const amount = row.get('amount') === undefined || row.get('amount') === '' ? (issues.push({ path: row.at('amount'), message: 'is required' }), null) : readAmount(row.get('amount'), minorUnits, row.at('amount'), issues);
    const dateText = text('paymentDate', 10, true);
    const date = dateText === null ? null : readPastDate(dateText, row.at('paymentDate'), issues, today);
    const cashText = text('cashAccountID', 10, false);
    let cashAccountId: number | null = null;
    if (cashText !== null) {
      if (/^[0-9]{1,10}$/.test(cashText) && Number(cashText) <= 2147483647) cashAccountId = Number(cashText);
      else issues.push({ path: row.at('cashAccountID'), message: 'must be a whole number from 0' });
    }
    // The rule make-payment's schema holds a reference to (an import took U+200B, U+202E and BEL: an attacker's finding).
    if (reference !== null && !isIdentifier(reference)) issues.push({ path: row.at('reference'), message: IDENTIFIER_MESSAGE });
    if (reference !== null) {
      const first = firstRowOf.get(reference);
      if (first !== undefined) issues.push({ path: row.at('reference'), message: `is used twice in this file (also row ${first})` });
      else firstRowOf.set(reference, row.number);
    }
    if (issues.length === before && accountNumber && reference && channel && amount && date) {
      checked.push({ accountNumber, reference, channel, description, amount: amount.toFixed(), paymentDate: date, cashAccountId, importRow: row.number, row });
    }
  }

  return inTransaction(db, async (tx) => {
    const accounts = await accountIdsByNumber(tx, caller.appCode, [...new Set(checked.map((c) => c.accountNumber))]);
    const recorded = await recordedReferences(tx, caller.appCode, checked.map((c) => c.reference));
    const conflicts: ErrorDetail[] = [];
    const toWrite: NewPayment[] = [];
    let skipped = 0;
    for (const c of checked) {
      const accountId = accounts.get(c.accountNumber);
      if (accountId === undefined) {
        issues.push({ path: c.row.at('accountNumber'), message: 'no account with this number' });
        continue;
      }
      const earlier = recorded.get(c.reference);
      if (earlier) {
        const same = earlier.account_id === accountId && new Dec(earlier.amount).eq(c.amount) && earlier.payment_date === c.paymentDate;
        if (input.skipRecorded && same) skipped++;
        else
          conflicts.push({
            path: c.row.at('reference'),
            // A statement overlapping one imported before is what skipRecorded is for (a new user did not find it).
            message: same ? 'is recorded already with this account, amount and date: send skipRecorded: true to skip such rows' : 'is recorded already for another payment',
          });
        continue;
      }
      toWrite.push({ ...c, accountId });
    }
    if (issues.length > 0) throw refused('VALIDATION_FAILED', [...issues, ...conflicts], rows.length);
    // The very same file again is named as such, before its rows are (each row recorded
    // already said so, where the docs promise one CONFLICT on the file: an attacker's finding).
    const sameFile = await findImportByHash(tx, caller.appCode, fileHash);
    if (sameFile !== undefined) throw importedAlready(sameFile, format);
    if (conflicts.length > 0) throw refused('CONFLICT', conflicts, rows.length);

    const total = toWrite.reduce((s, p) => s.plus(p.amount), new Dec(0));
    const importId = await claimImport(
      tx,
      caller.appCode,
      { fileName: input.fileName ?? null, fileHash, format, rowCount: rows.length, skipped, total: total.toFixed() },
      caller.email,
    );
    if (importId === undefined) throw importedAlready(await findImportByHash(tx, caller.appCode, fileHash), format);
    const written = await insertPayments(tx, caller.appCode, toWrite, importId, caller.email);
    if (written.length !== toWrite.length) {
      // Another request recorded one of these references meanwhile: refuse the whole file.
      const got = new Set(written.map((w) => w.reference));
      const lost = toWrite.filter((p) => !got.has(p.reference));
      throw refused(
        'CONFLICT',
        lost.map((p) => ({ path: checked.find((c) => c.reference === p.reference)!.row.at('reference'), message: 'is recorded already' })),
        rows.length,
      );
    }
    await settleAccounts(tx, caller.appCode, [...new Set(toWrite.map((p) => p.accountId))], caller.email);
    await recordPaymentsReceived(tx, caller.appCode, written.map((w) => w.payment_id));
    await recordEvent(tx, caller.appCode, 'import.finished', `import:payments:${importId}`, {
      kind: 'payments',
      importID: Number(importId),
      status: 'succeeded',
      recorded: written.length,
      skipped,
      total: total.toFixed(minorUnits),
    });
    return { importId, recorded: written.length, skipped, total: total.toFixed() };
  });
}

function importedAlready(earlier: { import_id: string; created_at: string } | undefined, format: string): AppError {
  return conflict(
    `This file was imported already (import ${earlier?.import_id ?? '?'} at ${earlier?.created_at ?? '?'}); nothing was recorded.`,
    format === 'csv' ? 'data.csv' : 'data.payments',
  );
}

function refused(code: 'VALIDATION_FAILED' | 'CONFLICT', details: ErrorDetail[], rowCount: number): AppError {
  const rowsWithIssues = new Set(details.map((d) => d.path.replace(/\.[^.]*$/, ''))).size;
  const what = code === 'CONFLICT' ? 'are recorded already' : 'are not valid';
  return new AppError(
    code,
    `The import was refused: ${rowsWithIssues} of ${rowCount} rows ${what}; nothing was recorded.` +
      (details.length > MAX_DETAILS ? ` The first ${MAX_DETAILS} problems are listed.` : ''),
    details.slice(0, MAX_DETAILS),
  );
}

/** The statement's rows from CSV text (rows numbered from 1 after the header) or JSON. */
function readRows(input: ImportInput): { rows: Row[]; format: 'csv' | 'json'; text: string } {
  if ((input.csv === undefined) === (input.payments === undefined)) {
    throw validationFailed([{ path: 'data.csv', message: 'send exactly one of csv and payments' }]);
  }
  if (input.payments !== undefined) {
    const rows = input.payments.map((p, i): Row => ({
      get: (f) => p[f],
      at: (f) => `data.payments[${i}].${f}`,
      number: i + 1,
    }));
    const unknown: ErrorDetail[] = [];
    input.payments.forEach((p, i) => {
      for (const k of Object.keys(p)) if (!(CSV_COLUMNS as readonly string[]).includes(k)) unknown.push({ path: `data.payments[${i}].${k}`, message: 'is not a known field' });
    });
    if (unknown.length > 0) throw validationFailed(unknown.slice(0, MAX_DETAILS), 'The import was refused: rows have unknown fields; nothing was recorded.');
    return { rows, format: 'json', text: JSON.stringify(input.payments) };
  }
  const text = input.csv!;
  let records: string[][];
  try {
    records = parse(text, { bom: true, skip_empty_lines: true, relax_column_count: false, trim: true }) as string[][];
  } catch (err) {
    const line = (err as { lines?: number }).lines;
    throw validationFailed([{ path: 'data.csv', message: `is not valid CSV${line ? ` (line ${line})` : ''}: ${(err as Error).message}` }]);
  }
  const [header, ...body] = records;
  if (!header) throw validationFailed([{ path: 'data.csv', message: 'has no header row' }]);
  const headerIssues: ErrorDetail[] = [];
  header.forEach((h, i) => {
    if (!(CSV_COLUMNS as readonly string[]).includes(h)) headerIssues.push({ path: `data.csv.header[${i}]`, message: `"${h}" is not a known column (${CSV_COLUMNS.join(', ')})` });
    else if (header.indexOf(h) !== i) headerIssues.push({ path: `data.csv.header[${i}]`, message: `"${h}" appears twice` });
  });
  for (const r of REQUIRED) if (!header.includes(r)) headerIssues.push({ path: 'data.csv.header', message: `the column "${r}" is missing` });
  if (headerIssues.length > 0) throw validationFailed(headerIssues, 'The import was refused: the header row is not valid; nothing was recorded.');
  if (body.length === 0) throw validationFailed([{ path: 'data.csv', message: 'has no rows after the header' }]);
  if (body.length > MAX_ROWS) throw validationFailed([{ path: 'data.csv', message: `has more than ${MAX_ROWS} rows; split the file` }]);
  const index = new Map(header.map((h, i) => [h, i]));
  const rows = body.map((r, i): Row => ({
    get: (f) => {
      const at = index.get(f);
      return at === undefined ? undefined : r[at];
    },
    at: (f) => `data.rows[${i + 1}].${f}`,
    number: i + 1,
  }));
  return { rows, format: 'csv', text };
}
