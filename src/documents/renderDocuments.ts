// Rendering a term's bill documents: the plan marks the bills pending with the
// template version in force and queues chunk jobs; a chunk renders its pending bills
// and writes PDFs, checksums and failures in one statement. Run again (a retried job,
// a crash), a chunk finds its done bills no longer pending and renders only the rest.
import crypto from 'node:crypto';
import type pg from 'pg';
import { inTransaction, type Queryable } from '../db/pool.ts';
import { invalidState, notFound } from '../errors.ts';
import { loadDocumentData } from './billContext.ts';
import { addRenderJobs } from './jobs.ts';
import { markPending, pendingChunks, pendingIn, saveResults, TERM_STATUSES_WITH_DOCUMENTS, type RenderResult } from './documentStore.ts';
import { resolveTemplate } from './resolveTemplate.ts';
import { compileInvoice, renderInvoice } from './render.ts';

// Small, so a worker rendering is free again within a fraction of a second for bill-run work.
export const RENDER_CHUNK = 10;

type PlanOptions = { all: boolean; billIds?: number[] };

/**
 * Marks the term's bills pending (see markPending) and queues their chunks, in the
 * caller's transaction. Answers how many documents are queued.
 */
export async function planDocuments(tx: Queryable, appCode: number | null, termId: string, o: PlanOptions = { all: false }): Promise<number> {
  const t = await tx.query<{ app_code: number; status: string; template_id: number }>(
    `SELECT t.app_code, t.status, coalesce((v.definition->'invoiceTemplate'->>'templateID')::int, 0) AS template_id
       FROM term t JOIN service_version v ON v.service_version_id = t.service_version_id
      WHERE t.term_id = $1 AND ($2::int IS NULL OR t.app_code = $2) FOR UPDATE OF t`,
    [termId, appCode],
  );
  const term = t.rows[0];
  if (!term) throw notFound('term', 'data.termID');
  if (!TERM_STATUSES_WITH_DOCUMENTS.includes(term.status)) throw invalidState(`A ${term.status} term has no bills to render; process it first.`);
  if (o.billIds !== undefined) {
    // A bill not of this term was queued as nothing and answered 200 (a fuzzer's unknown id, another app's).
    const found = await tx.query<{ bill_id: string }>(`SELECT bill_id FROM bill WHERE term_id = $1 AND bill_id = ANY($2::bigint[]) AND status <> 'withdrawn'`, [termId, o.billIds]);
    const known = new Set(found.rows.map((b) => Number(b.bill_id)));
    const missing = o.billIds.findIndex((id) => !known.has(id));
    if (missing >= 0) throw notFound(`bill ${o.billIds[missing]} of term ${termId}`, `data.billIDs[${missing}]`);
  }
  const template = await resolveTemplate(tx, term.app_code, 'invoice', term.template_id);
  const marked = await markPending(tx, termId, template.templateId, template.version, o);
  await addRenderJobs(tx, termId, await pendingChunks(tx, termId, RENDER_CHUNK));
  return marked;
}

/** The plan job: after processing, every bill of the term without a document. */
export async function planTermDocuments(db: pg.Pool, termId: string): Promise<void> {
  await inTransaction(db, (tx) => planDocuments(tx, null, termId));
}

/** A chunk job: renders the chunk's pending bills and stores them. */
export async function renderChunk(db: pg.Pool, termId: string, first: string, last: string): Promise<number> {
  const pending = await pendingIn(db, termId, first, last);
  if (pending.length === 0) return 0;
  const appCode = pending[0]!.app_code;
  const sources = new Map((await loadDocumentData(db, appCode, pending.map((p) => p.bill_id))).map((s) => [s.billId, s]));
  const templates = new Map<string, ReturnType<typeof compileInvoice> | Error>();
  const results: RenderResult[] = [];
  for (const p of pending) {
    const key = `${p.template_id}:${p.template_version}`;
    if (!templates.has(key)) {
      try {
        const t = await resolveTemplate(db, appCode, 'invoice', Number(p.template_id), p.template_version);
        templates.set(key, compileInvoice({ body: t.body }));
      } catch (err) {
        templates.set(key, err as Error);
      }
    }
    const template = templates.get(key)!;
    const source = sources.get(p.bill_id);
    try {
      if (template instanceof Error) throw template;
      if (!source) throw new Error('the bill was not found');
      const pdf = await renderInvoice(template, source.data);
      results.push({ billId: p.bill_id, pdf, sha256: crypto.createHash('sha256').update(pdf).digest('hex') });
    } catch (err) {
      results.push({ billId: p.bill_id, error: (err instanceof Error ? err.message : String(err)).slice(0, 1000) });
    }
  }
  await saveResults(db, results);
  return results.length;
}
