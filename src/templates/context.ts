// What a subscription (and a reading or an import row) needs to know of its pricing template: the inputs its values are
// checked against and the batches it may be billed in. Read from the template's current
// version; an import loads every template of the app once and keeps them in memory
// (there are tens of templates, not thousands).
import type { Queryable } from '../db/pool.ts';
import type { ConnectionInput, MeteredInput, UnmeteredInput } from '../rating/tariff.ts';

export type TemplateContext = {
  serviceId: string;
  serviceCode: string;
  archived: boolean;
  connectionInputs: ConnectionInput[];
  unmeteredInputs: UnmeteredInput[];
  meteredInputs: MeteredInput[];
  /** The documents a subscription must have recorded before it is connected (requiredDocs). */
  requiredDocs: string[];
  /** The template's batches: code to batch id. */
  batches: Map<string, string>;
};

type Row = {
  service_id: string;
  service_code: string;
  archive_status: number;
  connection_inputs: ConnectionInput[] | null;
  unmetered_inputs: UnmeteredInput[] | null;
  metered_inputs: MeteredInput[] | null;
  required_docs: string[] | null;
  batches: [string, string][];
};

export async function loadTemplates(db: Queryable, appCode: number, by?: { codes?: string[]; ids?: string[] }): Promise<TemplateContext[]> {
  const r = await db.query<Row>(
    `SELECT s.service_id, s.service_code, s.archive_status,
            v.definition->'connectionInputs' AS connection_inputs,
            v.definition->'unmeteredInputs' AS unmetered_inputs,
            v.definition->'meteredInputs' AS metered_inputs,
            v.definition->'requiredDocs' AS required_docs,
            COALESCE((SELECT json_agg(json_build_array(b.batch_code, b.batch_id::text))
                        FROM service_batch sb JOIN batch b ON b.batch_id = sb.batch_id
                       WHERE sb.service_id = s.service_id), '[]') AS batches
       FROM service s JOIN service_version v ON v.service_id = s.service_id AND v.version = s.current_version
      WHERE s.app_code = $1
        AND ($2::text[] IS NULL OR s.service_code = ANY($2::text[]))
        AND ($3::bigint[] IS NULL OR s.service_id = ANY($3::bigint[]))`,
    [appCode, by?.codes ?? null, by?.ids ?? null],
  );
  return r.rows.map((x) => ({
    serviceId: x.service_id,
    serviceCode: x.service_code,
    archived: x.archive_status === 1,
    connectionInputs: x.connection_inputs ?? [],
    unmeteredInputs: x.unmetered_inputs ?? [],
    meteredInputs: x.metered_inputs ?? [],
    requiredDocs: (x.required_docs ?? []).map((d) => d.trim()).filter((d) => d !== ''),
    batches: new Map(x.batches),
  }));
}

export async function loadTemplate(db: Queryable, appCode: number, code: string): Promise<TemplateContext | undefined> {
  return (await loadTemplates(db, appCode, { codes: [code] }))[0];
}

/** Every batch code of the app: tells "no such batch" from "not one of this template's batches". */
export async function loadBatchCodes(db: Queryable, appCode: number): Promise<Map<string, string>> {
  const r = await db.query<{ batch_code: string; batch_id: string }>('SELECT batch_code, batch_id FROM batch WHERE app_code = $1', [appCode]);
  return new Map(r.rows.map((x) => [x.batch_code, x.batch_id]));
}
