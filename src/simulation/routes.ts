import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { operation, RawFile, requestSchema, type Services } from '../http/operation.ts';
import { notFound } from '../errors.ts';
import { Paging } from '../primitives.ts';
import { ExportData, GetResultsData, GetSimulationsData, ResultsAnswer, SimulateTariffData, SimulationId, SimulationRecord } from './schemas.ts';
import { simulateTariff } from './simulateTariff.ts';
import { listSimulations, readSimulation, resultPage } from './store.ts';
import { simulationRecord, simulationResult } from './simulationRecord.ts';
import { exportSimulation } from './exportSimulation.ts';
import { withResultLines } from './resultLines.ts';
import { deleteSimulation } from './deleteSimulation.ts';

const TAG = 'tariff simulation';

export async function simulationRoutes(app: FastifyInstance, services: Services): Promise<void> {
  operation(app, services, {
    path: '/billing/simulations/simulate-tariff',
    headers: { 'X-Billrun-Simulation-Id': 'the new simulationID' },
    role: 'biller',
    tag: TAG,
    summary: 'Simulate a tariff over a term',
    description:
      "Rates every roster subscription of the term (processed: with the readings its bills used; planned: its roster and readings) by the term's tariff and by a draft (a tariff not saved, or draftVersion), through the bill run's rating code, writing no bill. solve: one rate of the draft solved for a target revenue first. A roster that fits one chunk is rated in the request (status Done); a larger one (or background) is a job (status Queued; poll get-simulations). The new simulationID is also in the X-Billrun-Simulation-Id header.",
    idempotent: true,
    body: requestSchema({ method: 'Create', action: 'Simulate Tariff' }, { data: SimulateTariffData }),
    data: Type.Object({ simulation: SimulationRecord }),
    handler: async (body, ctx) => {
      const id = await simulateTariff(ctx.db, ctx.caller, body.data, { chunkSize: ctx.config.billRunChunkSize });
      ctx.reply.header('x-billrun-simulation-id', id);
      return { simulation: simulationRecord((await readSimulation(ctx.db, id, ctx.caller.appCode))!) };
    },
  });

  operation(app, services, {
    path: '/billing/simulations/get-simulations',
    role: 'viewer',
    tag: TAG,
    summary: 'List simulations',
    description: 'Simulations of the app, newest first, with their progress and, once Done, their summary: both revenues and the difference, by consumption band and by batch.',
    body: requestSchema({ method: 'Retrieve', action: 'Retrieve Simulations' }, { data: Type.Optional(GetSimulationsData) }),
    data: Type.Object({ simulations: Type.Array(SimulationRecord), paging: Paging }),
    handler: async (body, ctx) => {
      const f = body.data ?? {};
      const { rows, total } = await listSimulations(ctx.db, ctx.caller.appCode, f);
      return { simulations: rows.map(simulationRecord), paging: { limit: f.limit ?? 100, offset: f.offset ?? 0, total } };
    },
  });

  operation(app, services, {
    path: '/billing/simulations/get-simulation-results',
    role: 'viewer',
    tag: TAG,
    summary: "A page of a simulation's results",
    description:
      'Per roster subscription (with its account; accountNumber: only that account): both amounts, the difference, both bills line by line with their explanations; or why it was not rated. Sorted by difference (default: the largest rise first).',
    body: requestSchema({ method: 'Retrieve', action: 'Retrieve Simulation Results' }, { data: GetResultsData }),
    data: ResultsAnswer,
    handler: async (body, ctx) => {
      const sim = await readSimulation(ctx.db, body.data.simulationID, ctx.caller.appCode);
      if (!sim) throw notFound('simulation', 'data.simulationID');
      const limit = body.data.limit ?? 100;
      const offset = body.data.offset ?? 0;
      const { sort, failed, batchCode, accountNumber } = body.data;
      const page = await resultPage(ctx.db, sim, { sort, failed, batchCode, accountNumber, limit, offset });
      const rows = await withResultLines(sim, page.rows);
      return { results: rows.map((r) => simulationResult(r, sim.minor_units)), paging: { limit, offset, total: page.total } };
    },
  });

  operation(app, services, {
    path: '/billing/simulations/export-simulation',
    role: 'viewer',
    tag: TAG,
    summary: "A simulation's results as CSV",
    description: 'One row per roster subscription: both amounts, the difference, and for one not rated its code and reason. sort as get-simulation-results (default subscriptionID).',
    raw: { types: ['text/csv'] },
    body: requestSchema({ method: 'Retrieve', action: 'Export Simulation' }, { data: ExportData }),
    data: RawFile,
    handler: async (body, ctx) => exportSimulation(ctx.db, ctx.caller.appCode, body.data),
  });

  operation(app, services, {
    path: '/billing/simulations/delete-simulation',
    role: 'biller',
    tag: TAG,
    summary: 'Delete a simulation',
    description: 'The simulation and its results; jobs still queued for it end without doing anything.',
    body: requestSchema({ method: 'Update', action: 'Delete Simulation' }, { data: Type.Object({ simulationID: SimulationId }, { additionalProperties: false }) }),
    data: Type.Object({}),
    handler: async (body, ctx) => {
      await deleteSimulation(ctx.db, ctx.caller.appCode, body.data.simulationID);
      return {};
    },
  });
}
