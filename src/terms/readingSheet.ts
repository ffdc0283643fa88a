// A term's reading sheet (step 3): a row per roster subscription and meter, for the meter
// reader's round and for capture-readings' upload. Besides the columns the upload reads
// (subscriptionID, inputCode, readingDate, value) each row says whose meter it is (the
// account, its address, the connection's inputs such as the meter number) and what it
// read last, which the bill subtracts from, so a misread shows before it is keyed in
// (an officer's walk: a sheet of ids and codes alone). The readings are the run's own
// (loadRosterInputs), so the sheet says what a bill made now would read. Streamed a page of
// the roster at a time, so a term of a million subscriptions is a file, not a reply held in memory.
import { Readable } from 'node:stream';
import type pg from 'pg';
import { invalidState, notFound } from '../errors.ts';
import type { RawAnswer } from '../http/operation.ts';
import { csvLine } from '../csv.ts';
import { appToday, formatDate } from '../calendar/calendar.ts';
import { readTerm } from '../billRun/termStore.ts';
import { loadRosterInputs, runContext } from '../billRun/rateRoster.ts';
import { TERM_STATUS } from '../billRun/termStates.ts';
import { attempt, Dec, prepareTariff, versionTimeline, type TariffVersion } from '../rating/index.ts';

export const SHEET_COLUMNS = [
  'subscriptionID', 'accountNumber', 'accountName', 'address', 'connection', 'inputCode', 'meter', 'unit',
  'previousReadingDate', 'previousReading', 'readInTermDate', 'readInTerm', 'readingDate', 'value', 'note',
] as const;

export type SheetOptions = { termID: number; format?: 'csv' | 'jsonl'; unreadOnly?: boolean };

const PAGE = 2000;
/** Every reading, whatever its id: the sheet shows what is recorded now, not a run's frozen view. */
const NO_MARK = '9223372036854775807';

type Person = { subscription_id: string; account_number: string; account_name: string; address: string | null; connection_inputs: Record<string, unknown> | null };
type SheetRecord = Record<(typeof SHEET_COLUMNS)[number], string | number>;

export async function readingSheet(db: pg.Pool, appCode: number, o: SheetOptions): Promise<RawAnswer> {
  const term = await readTerm(db, o.termID);
  if (term === undefined || term.app_code !== appCode) throw notFound('term', 'data.termID');
  // The roster is what the sheet lists: a Draft term has none yet, and a cancelled one none to read for.
  if (term.status === TERM_STATUS.Draft || term.status === TERM_STATUS.Cancelled || term.roster_loaded_at === null) {
    throw invalidState(`The term is ${term.status}: its reading sheet lists its roster, which load-subscriptions makes.`);
  }
  const ctx = await runContext(db, term, NO_MARK);
  const versions: TariffVersion[] = ctx.inForce ?? [{ version: 1, from: ctx.start, tariff: ctx.tariff }];
  const today = await appToday(db, appCode);
  const format = o.format ?? 'csv';

  // The meters a bill of the subscription reads: those the versions in force over its part
  // of the term price (a version adding a meter from a day after it ended asks nothing of it).
  const metersOver = (start: string, end: string) => {
    const codes = new Map<string, { label: string; unit: string }>();
    for (const piece of versionTimeline(versions, start, end)) {
      const tariff = versions.find((v) => v.version === piece.version)!.tariff;
      const prepared = attempt(() => prepareTariff(tariff));
      if (!prepared.ok) continue;
      for (const m of prepared.value.meteredNeeded) {
        if (codes.has(m.code)) continue;
        const input = (tariff.meteredInputs ?? []).find((x) => x.code === m.code);
        codes.set(m.code, { label: input?.label ?? m.code, unit: input?.unit ?? '' });
      }
    }
    return codes;
  };

  async function* pages(): AsyncGenerator<SheetRecord[]> {
    if (ctx.meteredCodes.length === 0) return;
    let after = '0';
    for (;;) {
      const page = await db.query<{ first: string | null; last: string | null }>(
        `SELECT min(subscription_id)::text AS first, max(subscription_id)::text AS last
           FROM (SELECT subscription_id FROM term_subscription WHERE term_id = $1 AND subscription_id > $2::bigint ORDER BY subscription_id LIMIT $3) p`,
        [term!.term_id, after, PAGE],
      );
      const { first, last } = page.rows[0] ?? { first: null, last: null };
      if (first === null || last === null) return;
      after = last;
      // The readings as a bill of the term reads them now (loadRosterInputs: READINGS_SQL, then
      // each meter started where the subscription's earlier bill ended, meterChain.ts).
      const inputs = await loadRosterInputs(db, ctx, first, last, { withBilled: true });
      const people = await db.query<Person>(
        `SELECT s.subscription_id, ac.account_number, ac.name AS account_name, ac.address, s.connection_inputs
           FROM subscription s JOIN account ac ON ac.account_id = s.account_id WHERE s.subscription_id = ANY($1::bigint[])`,
        [inputs.map((i) => i.subscriptionId)],
      );
      const whose = new Map(people.rows.map((p) => [p.subscription_id, p]));
      const records: SheetRecord[] = [];
      for (const input of inputs) {
        const start = input.startDate > ctx.start ? input.startDate : ctx.start;
        const end = input.endDate !== null && input.endDate < ctx.end ? input.endDate : ctx.end;
        // The day to read: the end of its part of the term, or today when that is later, never before the part starts.
        const readingDate = today < end && today >= start ? today : end;
        const person = whose.get(input.subscriptionId);
        for (const [code, meter] of metersOver(start, end)) {
          const r = input.readings[code];
          const current = r?.current;
          // An estimate is no reading: its meter is still to be read (unreadOnly), and the sheet says which it was.
          if (o.unreadOnly === true && current !== undefined && current.estimated !== true) continue;
          records.push({
            subscriptionID: Number(input.subscriptionId),
            accountNumber: person?.account_number ?? '',
            accountName: person?.account_name ?? '',
            address: person?.address ?? '',
            connection: Object.entries(person?.connection_inputs ?? {}).map(([k, v]) => `${k}: ${String(v)}`).join('; '),
            inputCode: code,
            meter: meter.label,
            unit: meter.unit,
            previousReadingDate: r?.previous === undefined ? '' : formatDate(r.previous.date),
            previousReading: r?.previous === undefined ? '' : pointText(r.previous),
            readInTermDate: current === undefined ? '' : formatDate(current.date),
            readInTerm: current === undefined ? '' : pointText(current),
            readingDate: formatDate(readingDate),
            value: '',
            note: '',
          });
        }
      }
      yield records;
    }
  }

  async function* lines() {
    if (format === 'csv') yield csvLine(SHEET_COLUMNS);
    for await (const page of pages()) {
      let chunk = '';
      for (const rec of page) chunk += format === 'csv' ? csvLine(SHEET_COLUMNS.map((c) => rec[c])) : `${JSON.stringify(rec)}\n`;
      if (chunk !== '') yield chunk;
    }
  }
  return { type: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8', payload: Readable.from(lines()) };
}

/** A reading as the sheet writes it: its value, "(estimated)" after an estimate. */
const pointText = (p: { value: string | number; estimated?: boolean }) => `${new Dec(String(p.value)).toFixed()}${p.estimated === true ? ' (estimated)' : ''}`;
