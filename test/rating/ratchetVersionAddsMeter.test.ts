// A reviewer's finding (ratchet; a segment's part held to its share of the threshold by its part
// of the quantity): thresholdOf shares the bill's threshold by part / total, where `total`
// (rateSegments.ts, partOf) adds only the parts of the segments whose version meters the
// input (billedParts is filled from each version's meteredNeeded). The demand itself is
// split over every segment by days (segments.ts, splitConsumption). When the meter is priced
// from a version that starts inside the term (a demand charge introduced on 16/11), the
// segment's part is 15/30 of the demand but total = that part, so the part is held to the
// WHOLE month's threshold: half a month is billed a full month's ratchet (or floor). The
// same bill with no demand at all (total 0) takes the share by days, 30: a customer that
// used more is billed 60, one that used nothing 30. Before ba055f6 the floor was shared by
// days here (30); this is a regression for the floor too.
//
// Worked by hand. November, 30 days. Version 1 (to 15/11): a flat fee only, no meter.
// Version 2 (from 16/11, 15 of the 30 days): demand 14.00 a kW, ratchet 75% over 11 months
// (or a floor of 60% of a contract of 100). Demand read 40.0 kW; highest of the 11 months
// before 80.0 -> the bill's threshold 75% x 80 = 60 kW (the floor: 60% x 100 = 60 kW).
//   The segment's part of the demand: 40 x 15/30 = 20 kW.
//   Its share of the threshold: 60 x 15/30 = 30 kW (as the demand, and as the bill with no
//   demand gets it): max(20, 30) = 30 kW x 14.00 = 420.00.
//   What it bills: threshold 60 x 20/20 = 60 kW: 60 x 14.00 = 840.00.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rateBill } from '../../src/rating/rateBill.ts';
import type { Tariff } from '../../src/rating/tariff.ts';
import type { TariffVersion } from '../../src/rating/segments.ts';

const fixed = (): Tariff => ({ components: [{ code: 'fee', name: 'Service fee', model: 'flat', amount: '10.00' }] });
const withDemand = (held: Record<string, unknown>): Tariff => ({
  meteredInputs: [{ code: 'demand', label: 'Maximum demand', unit: 'kW', decimals: 1, register: 'maximum' }],
  unmeteredInputs: [{ code: 'contract', label: 'Contract demand (kW)', default: 100 }],
  components: [
    { code: 'fee', name: 'Service fee', model: 'flat', amount: '10.00' },
    { code: 'demand', name: 'Demand charge', model: 'perUnit', input: 'demand', rate: '14.00', ...held } as never,
  ],
});

const rate = (demand: string, held: Record<string, unknown>) => {
  const versions: TariffVersion[] = [
    { version: 1, from: '2020-01-01', tariff: fixed() },
    { version: 2, from: '2026-11-16', tariff: withDemand(held) },
  ];
  const b = rateBill({
    tariff: fixed(),
    versions,
    term: { start: '2026-11-01', end: '2026-11-30' },
    subscription: { startDate: '2020-01-01', unmetered: { contract: 100 } },
    readings: {
      demand: { previous: { date: '2026-10-31', value: '41.2' }, current: { date: '2026-11-30', value: demand }, ratchet: { '11': { date: '2026-07-31', value: '80.0' } } },
    },
    minorUnits: 2,
  });
  return b.lines.find((l) => l.componentCode === 'demand')!;
};

describe('a demand charge introduced by a version inside the term', () => {
  test('a ratchet on a meter priced from the 16th holds the half month to half the threshold', () => {
    // With no demand at all the segment is held to 30 (shared by days): the reference.
    assert.equal(rate('0.0', { ratchet: { percentage: '75', months: 11 } }).quantity, '30.0');
    const l = rate('40.0', { ratchet: { percentage: '75', months: 11 } });
    // fails: quantity 60.0, amount 840.00 (the whole month's 60 kW for 15 days)
    assert.deepEqual([l.quantity, l.amount], ['30.0', '420.00'], JSON.stringify(l.trace.ratchet));
  });

  test('a floor on a meter priced from the 16th (shared by days before ba055f6)', () => {
    const l = rate('40.0', { floor: { input: 'contract', percentage: '60' } });
    // fails: quantity 60.0, amount 840.00
    assert.deepEqual([l.quantity, l.amount], ['30.0', '420.00'], JSON.stringify(l.trace.bound));
  });
});
