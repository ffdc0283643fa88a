// The simulation suites' requests and waits, shared so that each suite drives
// simulate-tariff, its records and its results the same way.
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { waterService } from '../fixtures/tariffs.ts';

export const env = (method: string, action: string, data: unknown) => ({ method, action, apiVersion: 'v2', data });
export const simulate = (h: Harness, data: Record<string, unknown>, token?: string) => h.post('/billing/simulations/simulate-tariff', env('Create', 'Simulate Tariff', data), token);
export const results = (h: Harness, data: Record<string, unknown>, token?: string) =>
  h.post('/billing/simulations/get-simulation-results', env('Retrieve', 'Retrieve Simulation Results', data), token);
export const list = (h: Harness, data: Record<string, unknown> = {}, token?: string) => h.post('/billing/simulations/get-simulations', env('Retrieve', 'Retrieve Simulations', data), token);

/** The water tariff's pricing arrays, with the second tier's rate replaced. */
export function draftWith(tier2: string) {
  const s = waterService();
  const components = structuredClone(s.components!) as any[];
  components[1].tiers[1].rate = tier2;
  return { values: s.values, meteredInputs: s.meteredInputs, components };
}

/** The simulation record simulate-tariff answers (200, its id in the header). */
export async function simulated(h: Harness, data: Record<string, unknown>) {
  const r = await simulate(h, data);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.headers.get('x-billrun-simulation-id'), String(r.body.data.simulation.simulationID));
  return r.body.data.simulation;
}

export async function allResults(h: Harness, simulationID: number, extra: Record<string, unknown> = {}) {
  const r = await results(h, { simulationID, limit: 1000, ...extra });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.results as any[];
}

/** Polls get-simulations until the simulation is Done or Failed; answers its record. */
export async function waitForSimulation(h: Harness, simulationID: number) {
  for (let i = 0; i < 300; i++) {
    const s = (await list(h, { simulationID })).body.data.simulations[0];
    if (s.status === 'Done' || s.status === 'Failed') return s;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`simulation ${simulationID} did not finish`);
}

/** A side's (or a difference's) amounts: charges, tax, total. */
export const amounts = (x: any) => [x.charges, x.tax, x.total];
