// The sandbox plant API: plain REST with Bearer tokens and { code, message } errors,
// beside the business API rather than inside its envelope (operation()'s sandbox shape).
import { SANDBOX_LIMIT_PATTERN, VISIBLE_TEXT } from '../primitives.ts';
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { operation, type Services } from '../http/operation.ts';
import { AppError } from '../errors.ts';

// interface.md's plant is `name` string, `tag` string: a plant made without a tag answers
// tag "" (it was left out, and a client written from interface.md read undefined where it
// expects a string: an outside check).
const Plant = Type.Object({ id: Type.Integer(), name: Type.String(), tag: Type.String({ description: '"" when the plant was made without one' }) });
const TAG = 'sandbox';
// Ids are positive integers; anything else is simply no plant.
const IdParam = Type.Object({ id: Type.String({ maxLength: 30 }) });

type PlantRow = { plant_id: string; name: string; tag: string | null };
const toPlant = (r: PlantRow) => ({ id: Number(r.plant_id), name: r.name, tag: r.tag ?? '' });
const plantId = (raw: string) => (/^[1-9]\d{0,15}$/.test(raw) ? raw : undefined);
const noPlant = () => new AppError('NOT_FOUND', 'There is no such plant.');

export async function sandboxRoutes(app: FastifyInstance, services: Services): Promise<void> {
  operation(app, services, {
    shape: 'sandbox',
    method: 'GET',
    path: '/plants',
    role: 'viewer',
    tag: TAG,
    summary: 'List plants',
    // A query's value arrives as text, but a client generated from the document may hold it
    // as a number (one had to write limit: '5'): both, each with the real range 1 to 100.
    query: Type.Object(
      { limit: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 100 }), Type.String({ pattern: SANDBOX_LIMIT_PATTERN })], { description: '1 to 100, default 20' })) },
      { additionalProperties: false },
    ),
    data: Type.Array(Plant),
    handler: async (_body, ctx) => {
      const raw = ctx.query.limit;
      const limit = raw === undefined ? 20 : Number(raw);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
        throw new AppError('VALIDATION_FAILED', 'limit must be a whole number from 1 to 100.', [{ path: 'limit', message: 'must be 1 to 100' }]);
      }
      const r = await ctx.db.query<PlantRow>('SELECT plant_id, name, tag FROM plant WHERE app_code = $1 ORDER BY plant_id LIMIT $2', [ctx.caller.appCode, limit]);
      return r.rows.map(toPlant);
    },
  });

  operation(app, services, {
    shape: 'sandbox',
    method: 'POST',
    path: '/plants',
    role: 'biller',
    tag: TAG,
    summary: 'Create a plant',
    body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200, pattern: VISIBLE_TEXT }), tag: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: false }),
    data: Plant,
    status: 201,
    handler: async (body, ctx) => {
      const r = await ctx.db.query<PlantRow>('INSERT INTO plant (app_code, name, tag) VALUES ($1, $2, $3) RETURNING plant_id, name, tag', [
        ctx.caller.appCode,
        body.name,
        body.tag ?? null,
      ]);
      const plant = toPlant(r.rows[0]!);
      ctx.reply.header('location', `/sandbox/plants/${plant.id}`);
      return plant;
    },
  });

  operation(app, services, {
    shape: 'sandbox',
    method: 'GET',
    path: '/plants/:id',
    role: 'viewer',
    tag: TAG,
    summary: 'Read a plant',
    params: IdParam,
    data: Plant,
    handler: async (_body, ctx) => {
      const id = plantId(ctx.params.id);
      if (!id) throw noPlant();
      const r = await ctx.db.query<PlantRow>('SELECT plant_id, name, tag FROM plant WHERE app_code = $1 AND plant_id = $2', [ctx.caller.appCode, id]);
      if (!r.rows[0]) throw noPlant();
      return toPlant(r.rows[0]);
    },
  });

  operation(app, services, {
    shape: 'sandbox',
    method: 'DELETE',
    path: '/plants/:id',
    role: 'biller',
    tag: TAG,
    summary: 'Delete a plant',
    params: IdParam,
    data: Type.Null(),
    status: 204,
    handler: async (_body, ctx) => {
      const id = plantId(ctx.params.id);
      if (!id) throw noPlant();
      const r = await ctx.db.query('DELETE FROM plant WHERE app_code = $1 AND plant_id = $2', [ctx.caller.appCode, id]);
      if (r.rowCount === 0) throw noPlant();
      return null;
    },
  });
}
