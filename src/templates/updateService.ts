import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { notFound } from '../errors.ts';
import type { Caller } from '../auth/roles.ts';
import type { ServiceDefinition } from './schemas.ts';
import { normalizeDefinition } from './definition.ts';
import { insertVersion, linkBatches, lockService, setCurrentVersion } from './store.ts';
import { checkTemplateRefs } from '../documents/templateRefs.ts';

/**
 * Replaces a template's definition with a new version. Terms made before keep the
 * version they point at, so their bills do not change.
 */
export async function updateService(db: pg.Pool, caller: Caller, service: ServiceDefinition): Promise<number> {
  const definition = normalizeDefinition(service);
  return inTransaction(db, async (tx) => {
    const current = await lockService(tx, caller.appCode, definition.code);
    if (!current) throw notFound('pricing template', 'service.code');
    await checkTemplateRefs(tx, caller.appCode, definition);
    const version = current.current_version + 1;
    await insertVersion(tx, current.service_id, version, definition, caller.email);
    await setCurrentVersion(tx, current.service_id, version, caller.email);
    await linkBatches(tx, caller.appCode, current.service_id, definition.batches, caller.email);
    return version;
  });
}
