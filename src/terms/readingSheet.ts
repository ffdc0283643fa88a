// A term's reading sheet (step 3): a row per roster subscription and meter, for the meter
// reader's round and for capture-readings' upload. Besides the columns the upload reads
// (subscriptionID, inputCode, readingDate, value) each row says whose meter it is (the
// account, its address, the connection's inputs such as the meter number) and what it
// read last, which the bill subtracts from, so a misread shows before it is keyed in
// (an officer's walk: a sheet of ids and codes alone). Streamed a page of the roster at a
// time, so a term of a million subscriptions is a file, not a reply held in memory.
import { Readable } from 'node:stream';
import type pg from 'pg';
import { invalidState, notFound } from '../errors.ts';
import type { RawAnswer } from '../http/operation.ts';
import { csvLine } from '../csv.ts';
import { formatDate, todaySql } from '../calendar/calendar.ts';
import { readTerm } from '../billRun/termStore.ts';
import { READINGS_SQL, runContext } from '../billRun/rateRoster.ts';
import { TERM_STATUS } from '../billRun/termStates.ts';

export const SHEET_COLUMNS = [
  'subscriptionID', 'accountNumber', 'accountName', 'address', 'connection', 'inputCode', 'meter', 'unit',
  'previousReadingDate', 'previousReading', 'readInTermDate', 'readInTerm', 'readingDate', 'value', 'note',
] as const;

export type SheetOptions = { termID: number; format?: 'csv' | 'jsonl'; unreadOnly?: boolean };

const PAGE = 2000;
/** Every reading, whatever its id: the sheet shows what is recorded now, not a run's frozen view. */
const NO_MARK = '9223372036854775807';

type SheetRow = {
  subscription_id: string;
  code: string;
  account_number: string;
  account_name: string;
  address: string | null;
  connection_inputs: Record<string, unknown> | null;
  prev_date: string | null;
  prev_value: string | null;
  prev_kind: string | null;
  cur_date: string | null;
  cur_value: string | null;
  reading_date: string;
};

export async function readingSheet(db: pg.Pool, appCode: number, o: SheetOptions): Promise<RawAnswer> {
  const term = await readTerm(db, o.termID);
  if (term === undefined || term.app_code !== appCode) throw notFound('term', 'data.termID');
  // The roster is what the sheet lists: a Draft term has none yet, and a cancelled one none to read for.
  if (term.status === TERM_STATUS.Draft || term.status === TERM_STATUS.Cancelled || term.roster_loaded_at === null) {
    throw invalidState(`The term is ${term.status}: its reading sheet lists its roster, which load-subscriptions makes.`);
  }
  const ctx = await runContext(db, term, NO_MARK);
  const meters = new Map<string, { label: string; unit: string }>();
  for (const v of ctx.inForce ?? [{ tariff: ctx.tariff }]) for (const m of v.tariff.meteredInputs ?? []) if (!meters.has(m.code)) meters.set(m.code, { label: m.label, unit: m.unit });
  const codes = ctx.meteredCodes;
  const format = o.format ?? 'csv';

  async function* pages(): AsyncGenerator<SheetRow[]> {
    if (codes.length === 0) return;
    let after = '0';
    for (;;) {
      const page = await db.query<{ last: string | null }>(
        'SELECT max(subscription_id)::text AS last FROM (SELECT subscription_id FROM term_subscription WHERE term_id = $1 AND subscription_id > $2::bigint ORDER BY subscription_id LIMIT $3) p',
        [term!.term_id, after, PAGE],
      );
      const last = page.rows[0]?.last ?? null;
      if (last === null) return;
      // READINGS_SQL is the rule the bill reads by: its previous reading is what the bill
      // subtracts from, its current one a reading already dated in the term.
      const r = await db.query<SheetRow>(
        `SELECT x.subscription_id, x.code, x.prev_date::text, trim_scale(x.prev_value)::text AS prev_value, x.prev_kind,
                x.cur_date::text, trim_scale(x.cur_value)::text AS cur_value,
                ac.account_number, ac.name AS account_name, ac.address, s.connection_inputs,
                least($5::date, coalesce(s.end_date, $5::date), (SELECT ${todaySql()} FROM app a WHERE a.app_code = $9))::text AS reading_date
           FROM (${READINGS_SQL} WHERE ts.term_id = $1 AND ts.subscription_id > $2::bigint AND ts.subscription_id <= $3::bigint) x
           JOIN subscription s ON s.subscription_id = x.subscription_id
           JOIN account ac ON ac.account_id = s.account_id
          WHERE NOT $8::boolean OR x.cur_date IS NULL
          ORDER BY x.subscription_id, array_position($7::text[], x.code)`,
        [term!.term_id, after, last, ctx.start, ctx.end, NO_MARK, codes, o.unreadOnly === true, appCode],
      );
      after = last;
      yield r.rows;
    }
  }

  const record = (row: SheetRow) => {
    const meter = meters.get(row.code);
    return {
      subscriptionID: Number(row.subscription_id),
      accountNumber: row.account_number,
      accountName: row.account_name,
      address: row.address ?? '',
      connection: Object.entries(row.connection_inputs ?? {}).map(([k, v]) => `${k}: ${String(v)}`).join('; '),
      inputCode: row.code,
      meter: meter?.label ?? row.code,
      unit: meter?.unit ?? '',
      previousReadingDate: row.prev_date === null ? '' : formatDate(row.prev_date),
      previousReading: row.prev_value === null ? '' : `${row.prev_value}${row.prev_kind === 'estimated' ? ' (estimated)' : ''}`,
      readInTermDate: row.cur_date === null ? '' : formatDate(row.cur_date),
      readInTerm: row.cur_value ?? '',
      readingDate: formatDate(row.reading_date),
      value: '',
      note: '',
    };
  };

  async function* lines() {
    if (format === 'csv') yield csvLine(SHEET_COLUMNS);
    for await (const page of pages()) {
      let chunk = '';
      for (const row of page) {
        const rec = record(row);
        chunk += format === 'csv' ? csvLine(SHEET_COLUMNS.map((c) => rec[c])) : `${JSON.stringify(rec)}\n`;
      }
      if (chunk !== '') yield chunk;
    }
  }
  return { type: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8', payload: Readable.from(lines()) };
}
