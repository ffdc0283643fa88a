// The answers' shapes of stored simulation rows.
import { moneyText } from '../rating/money.ts';
import { explainLine, lineDays } from '../bills/explain.ts';
import { Dec, type RatedLine } from '../rating/index.ts';
import type { ResultRow, SimulationRow } from './store.ts';
import type { SimulationRecord, SimulationResult } from './schemas.ts';

export function simulationRecord(s: SimulationRow): SimulationRecord {
  const solve = s.solve?.answer ?? null;
  return {
    simulationID: Number(s.simulation_id),
    termID: Number(s.term_id),
    label: s.label,
    draftVersion: s.draft_version,
    status: s.status as SimulationRecord['status'],
    progress: {
      subscriptions: s.subscription_count,
      chunksDone: s.chunks_done,
      chunksTotal: s.chunks_total,
      percent: s.status === 'Done' ? 100 : s.chunks_total === 0 ? 0 : Math.floor((s.chunks_done * 100) / s.chunks_total),
    },
    bands: s.bands,
    solve,
    summary: (s.summary as SimulationRecord['summary']) ?? null,
    draft: s.draft,
    lastError: s.last_error,
    createdAt: s.created_at,
    createdBy: s.created_by,
    finishedAt: s.finished_at,
  };
}

const diff = (draft: string | null, current: string | null, minorUnits: number) => moneyText(new Dec(draft ?? '0').minus(current ?? '0'), minorUnits);
// A line's days (version, segment, prorated, a rate per unit per day's days) as on bills and the preview.
const lines = (l: RatedLine[] | null) => (l ?? []).map((x) => ({ ...x, ...lineDays(x), explanation: explainLine(x) }));

export function simulationResult(r: ResultRow, minorUnits: number): SimulationResult {
  const money = (x: string | null) => moneyText(x ?? '0', minorUnits);
  const side = (s: 'current' | 'draft') =>
    r[`${s}_total`] === null ? null : { charges: money(r[`${s}_charges`]), tax: money(r[`${s}_tax`]), total: money(r[`${s}_total`]), lines: lines(r[`${s}_lines`]) };
  const both = r.failure === null;
  return {
    subscriptionID: Number(r.subscription_id),
    accountID: Number(r.account_id),
    accountNumber: r.account_number,
    accountName: r.account_name,
    batchCode: r.batch_code,
    consumption: r.consumption,
    current: side('current'),
    draft: side('draft'),
    difference: both
      ? {
          charges: diff(r.draft_charges, r.current_charges, minorUnits),
          tax: diff(r.draft_tax, r.current_tax, minorUnits),
          total: diff(r.draft_total, r.current_total, minorUnits),
        }
      : null,
    failure: r.failure as SimulationResult['failure'],
  };
}
