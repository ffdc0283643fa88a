// A worker's own work per bill, in this process and without a database: the bill run's
// rating (rateEach) and the making of each bill's COPY row (billRowParts: the packer, and
// the source), for the roster billRun.bench.ts bills, once as a term of one version and once
// spanning the version change of `--version-change` (version 2 from 16/11/2026, a reading
// on 16/11 for every second subscription). Rounds alternate the two; prints the minimum
// and median µs a bill of each part and the ratio of the two terms' totals.
//
// Why a bench of its own: the whole run's ratio (issue 12: within 1.3x) moves by up to 40%
// between two runs of the same code on a shared host, a pair of runs takes minutes, and a
// worker's part of it is what the rating and the packer decide. Here a round of 20,000
// bills takes about a second and the rounds alternate the two terms, so both see the same
// host; the minimums still move by a fifth between runs on a busy one, so compare runs of
// the old and new code alternated, several each. The database's part (readings, COPY) is
// the full run's (`npm run bench -- billRun [--version-change]`). Flags: --n=N (20,000),
// --rounds=R (9).
import { arg } from './args.ts';
import { billSource } from '../src/billRun/billSource.ts';
import { meterReadingsOf, rateEach, type RatedEntry, type RosterInput, type RunContext } from '../src/billRun/rateRoster.ts';
import { billRowParts } from '../src/bills/store.ts';
import { StoredPacker } from '../src/billLines/storedLines.ts';
import { sumBills } from '../src/rating/billTotals.ts';
import type { Tariff } from '../src/rating/tariff.ts';
import { normalizeDefinition } from '../src/templates/definition.ts';
import { raisedWater, waterService } from '../test/fixtures/tariffs.ts';

const N = arg('--n', 20_000);
const ROUNDS = arg('--rounds', 9);

// The billRun bench's roster, as its SQL writes it: every 50th subscription starts on the
// change date; readings on 31/10 and 30/11, 0 to 59 m3 apart; with the change, every second
// subscription connected before it has a reading on 16/11 half-way.
const service = waterService('WATER');
const v1 = normalizeDefinition(service) as unknown as Tariff;
const v2 = normalizeDefinition(raisedWater(service)) as unknown as Tariff;
const inputs = (withChange: boolean): RosterInput[] =>
  Array.from({ length: N }, (_, k) => {
    const id = k + 1;
    const startDate = id % 50 === 0 ? '2026-11-16' : '2020-01-01';
    const previous = (id * 37) % 90000;
    const used = (id * 7) % 60;
    const input: RosterInput = {
      subscriptionId: String(id),
      accountId: String(id),
      startDate,
      endDate: null,
      unmetered: {},
      balance: '0',
      readings: {
        METER: meterReadingsOf({
          subscription_id: String(id),
          code: 'METER',
          prev_date: '2026-10-31',
          prev_value: String(previous),
          prev_kind: 'actual',
          prev_id: String(2 * id - 1),
          cur_date: '2026-11-30',
          cur_value: String(previous + used),
          cur_kind: 'actual',
          cur_id: String(2 * id),
        }),
      },
      readingIds: { METER: { previous: String(2 * id - 1), current: String(2 * id) } },
    };
    if (withChange && id % 2 === 0 && startDate < '2026-11-16') input.changeReadings = { METER: { '2026-11-16': String(previous + Math.floor(used / 2)) } };
    return input;
  });
const term = { termId: '1', appCode: 1, start: '2026-11-01', end: '2026-11-30', dueDate: '2026-12-14', watermark: null, meteredCodes: ['METER'], minorUnits: 2, rounding: 'halfUp' as const };
const terms: { name: string; ctx: RunContext; inputs: RosterInput[] }[] = [
  { name: 'one version', ctx: { ...term, tariff: v1, inForce: [{ version: 1, from: '2026-11-01', tariff: v1 }] }, inputs: inputs(false) },
  {
    name: 'version change',
    ctx: (() => {
      const versions = [{ version: 1, from: '2026-11-01', tariff: v1 }, { version: 2, from: '2026-11-16', tariff: v2 }];
      return { ...term, tariff: v1, versions, inForce: versions };
    })(),
    inputs: inputs(true),
  },
];

type Times = { rate: number[]; rows: number[]; total: number[] };
const times = new Map<string, Times>(terms.map((t) => [t.name, { rate: [], rows: [], total: [] }]));
const ratios: number[] = [];
const lines = new Map<string, number>();
for (let round = 0; round <= ROUNDS; round++) {
  const totals: number[] = [];
  for (const t of round % 2 === 0 ? terms : [...terms].reverse()) {
    const rated: RatedEntry[] = [];
    let failed = 0;
    let t0 = performance.now();
    await rateEach(t.ctx, t.inputs, (r) => rated.push(r), () => failed++);
    const rate = ((performance.now() - t0) * 1000) / N;
    if (failed > 0) throw new Error(`${t.name}: ${failed} subscriptions failed to rate`);
    const packer = new StoredPacker();
    const sums = sumBills([]);
    t0 = performance.now();
    for (const r of rated) {
      billRowParts(packer, 1, '1', '2026-12-01', '2026-12-14', { subscriptionId: r.input.subscriptionId, accountId: r.input.accountId, bill: r.bill, source: billSource(t.ctx, r.input, r.bill) });
      sumBills([r.bill], sums);
    }
    const rows = ((performance.now() - t0) * 1000) / N;
    lines.set(t.name, rated.reduce((n, r) => n + r.bill.lines.length, 0) / N);
    // The first round warms the code and the caches: not counted.
    if (round === 0) continue;
    const x = times.get(t.name)!;
    x.rate.push(rate);
    x.rows.push(rows);
    x.total.push(rate + rows);
    totals[terms.indexOf(t)] = rate + rows;
  }
  if (round > 0) ratios.push(totals[1]! / totals[0]!);
}

const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!;
const min = (a: number[]) => Math.min(...a);
const f = (us: number) => us.toFixed(2).padStart(6);
console.log(`rating and rows of ${N} bills in this process, ${ROUNDS} rounds alternated (after one to warm up): µs a bill, minimum / median`);
console.log(`  ${'term'.padEnd(16)} ${'lines'.padStart(5)}  ${'rating'.padStart(15)}  ${'rows'.padStart(15)}  ${'worker, in all'.padStart(15)}`);
for (const t of terms) {
  const x = times.get(t.name)!;
  console.log(`  ${t.name.padEnd(16)} ${lines.get(t.name)!.toFixed(1).padStart(5)}  ${f(min(x.rate))} / ${f(median(x.rate))}  ${f(min(x.rows))} / ${f(median(x.rows))}  ${f(min(x.total))} / ${f(median(x.total))}`);
}
const one = times.get(terms[0]!.name)!;
const change = times.get(terms[1]!.name)!;
console.log(
  `  the change's extra: ${f(min(change.total) - min(one.total))} µs a bill (minimums); ratio ${(min(change.total) / min(one.total)).toFixed(2)}x of the minimums, ${median(ratios).toFixed(2)}x median of the rounds' ratios` +
    ' (the worker\'s part only: the whole run\'s target, 1.3x, is measured by billRun --version-change)',
);
