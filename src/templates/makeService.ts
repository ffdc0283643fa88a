import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { conflict } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import type { ServiceDefinition } from './schemas.ts';
import { checkDefinitionInApp, normalizeDefinition } from './definition.ts';
import { insertService, insertVersion, linkBatches } from './store.ts';

/** Creates a pricing template at version 1 and makes the batches it names. */
export async function makeService(db: pg.Pool, caller: Caller, service: ServiceDefinition): Promise<string> {
  const definition = normalizeDefinition(service);
  return inTransaction(db, async (tx) => {
    await checkDefinitionInApp(tx, caller.appCode, definition);
    const serviceId = await insertService(tx, caller.appCode, definition.code, caller.email);
    if (!serviceId) throw conflict(`A pricing template with code "${definition.code}" exists already.`, 'service.code');
    await insertVersion(tx, serviceId, 1, definition, caller.email);
    await linkBatches(tx, caller.appCode, serviceId, definition.batches, caller.email);
    return serviceId;
  });
}
