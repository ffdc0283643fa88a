// A simulation's results as one CSV file, streamed a page at a time (a roster of a
// million rows streams in flat memory): one row per roster subscription, both amounts,
// the difference and, for one not rated, why.
import { Readable } from 'node:stream';
import type pg from 'pg';
import { notFound } from '../errors.ts';
import type { RawAnswer } from '../http/operation.ts';
import type { ResultSort } from './schemas.ts';
import { allResults, readSimulation } from './store.ts';
import { simulationResult } from './simulationRecord.ts';
import { csvField } from '../csv.ts';

export const EXPORT_COLUMNS = [
  'subscriptionID', 'accountNumber', 'accountName', 'batchCode', 'consumption',
  'currentCharges', 'currentTax', 'currentTotal', 'draftCharges', 'draftTax', 'draftTotal',
  'differenceCharges', 'differenceTax', 'differenceTotal', 'failureCode', 'failureReason',
] as const;

const PAGE = 2000;

export async function exportSimulation(db: pg.Pool, appCode: number, o: { simulationID: number; sort?: ResultSort }): Promise<RawAnswer> {
  const sim = await readSimulation(db, o.simulationID, appCode);
  if (!sim) throw notFound('simulation', 'data.simulationID');
  async function* rows(): AsyncGenerator<string> {
    yield `${EXPORT_COLUMNS.join(',')}\r\n`;
    for await (const page of allResults(db, sim!.simulation_id, { sort: o.sort ?? 'subscriptionID', lines: false }, PAGE)) {
      let text = '';
      for (const row of page) {
        const r = simulationResult(row, sim!.minor_units);
        const failure = r.failure?.current ?? r.failure?.draft;
        const side = (s: typeof r.current) => [s?.charges ?? '', s?.tax ?? '', s?.total ?? ''];
        text +=
          [r.subscriptionID, r.accountNumber, r.accountName, r.batchCode, r.consumption ?? '', ...side(r.current), ...side(r.draft),
            r.difference?.charges ?? '', r.difference?.tax ?? '', r.difference?.total ?? '', failure?.code ?? '', failure?.reason ?? '']
            .map(csvField)
            .join(',') + '\r\n';
      }
      yield text;
    }
  }
  return { type: 'text/csv; charset=utf-8', payload: Readable.from(rows()) };
}
