// The sandbox plant API: plain REST with Bearer tokens and { code, message } errors,
// beside the business API rather than inside its envelope.
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../http/operation.ts';
import { requireCaller } from '../http/authenticate.ts';
import { AppError } from '../http/errors.ts';
import { roleAllows } from '../auth/roles.ts';

const Plant = Type.Object({ id: Type.Integer(), name: Type.String(), tag: Type.Optional(Type.String()) });
const SandboxError = Type.Object({ code: Type.String(), message: Type.String() });
const errors = { '4xx': SandboxError, '5xx': SandboxError };
const security = [{ bearer: [] }];
// Ids are positive integers; anything else is simply no plant.
const IdParam = Type.Object({ id: Type.String({ maxLength: 30 }) });

type PlantRow = { plant_id: string; name: string; tag: string | null };
const toPlant = (r: PlantRow) => (r.tag === null ? { id: Number(r.plant_id), name: r.name } : { id: Number(r.plant_id), name: r.name, tag: r.tag });
const plantId = (raw: string) => (/^[1-9]\d{0,15}$/.test(raw) ? raw : undefined);
const noPlant = () => new AppError('NOT_FOUND', 'There is no such plant.');

export async function sandboxRoutes(app: FastifyInstance, { db }: Services): Promise<void> {
  const mayWrite = (request: Parameters<typeof requireCaller>[0]) => {
    const caller = requireCaller(request);
    if (!roleAllows(caller.role, 'biller')) throw new AppError('FORBIDDEN', `The ${caller.role} role may not change plants.`);
    return caller;
  };

  app.get(
    '/plants',
    {
      schema: {
        tags: ['sandbox'],
        summary: 'List plants',
        querystring: Type.Object({ limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: '1 to 100, default 20' })) }, { additionalProperties: false }),
        response: { 200: Type.Array(Plant), ...errors },
        security,
      },
    },
    async (request) => {
      const caller = requireCaller(request);
      const raw = (request.query as { limit?: string }).limit;
      const limit = raw === undefined ? 20 : Number(raw);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
        throw new AppError('VALIDATION_FAILED', 'limit must be a whole number from 1 to 100.', [{ path: 'limit', message: 'must be 1 to 100' }]);
      }
      const r = await db.query<PlantRow>('SELECT plant_id, name, tag FROM plant WHERE app_code = $1 ORDER BY plant_id LIMIT $2', [caller.appCode, limit]);
      return r.rows.map(toPlant);
    },
  );

  app.post(
    '/plants',
    {
      schema: {
        tags: ['sandbox'],
        summary: 'Create a plant',
        body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }), tag: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: false }),
        response: { 201: Plant, ...errors },
        security,
      },
    },
    async (request, reply) => {
      const caller = mayWrite(request);
      const body = request.body as { name: string; tag?: string };
      const r = await db.query<PlantRow>('INSERT INTO plant (app_code, name, tag) VALUES ($1, $2, $3) RETURNING plant_id, name, tag', [
        caller.appCode,
        body.name,
        body.tag ?? null,
      ]);
      const plant = toPlant(r.rows[0]!);
      reply.code(201).header('location', `/sandbox/plants/${plant.id}`);
      return plant;
    },
  );

  app.get(
    '/plants/:id',
    { schema: { tags: ['sandbox'], summary: 'Read a plant', params: IdParam, response: { 200: Plant, ...errors }, security } },
    async (request) => {
      const caller = requireCaller(request);
      const id = plantId((request.params as { id: string }).id);
      if (!id) throw noPlant();
      const r = await db.query<PlantRow>('SELECT plant_id, name, tag FROM plant WHERE app_code = $1 AND plant_id = $2', [caller.appCode, id]);
      if (!r.rows[0]) throw noPlant();
      return toPlant(r.rows[0]);
    },
  );

  app.delete(
    '/plants/:id',
    { schema: { tags: ['sandbox'], summary: 'Delete a plant', params: IdParam, response: { 204: Type.Null(), ...errors }, security } },
    async (request, reply) => {
      const caller = mayWrite(request);
      const id = plantId((request.params as { id: string }).id);
      if (!id) throw noPlant();
      const r = await db.query('DELETE FROM plant WHERE app_code = $1 AND plant_id = $2', [caller.appCode, id]);
      if (r.rowCount === 0) throw noPlant();
      reply.code(204).send();
    },
  );
}
