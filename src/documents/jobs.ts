// The documents' jobs on the graphile-worker queue, added with its SQL API inside the
// caller's transaction (like the bill run's): a plan per term, then one job per chunk
// of pending documents, so any number of workers render a term together.
import type { Queryable } from '../db/pool.ts';

export const DOCUMENT_TASKS = Object.freeze({ plan: 'documents-plan', render: 'documents-render' } as const);

// Documents give way to bill runs: a run's chunks (priority 0) are taken before any
// render job (priority 10) whenever a worker slot frees, and a render job is short
// (RENDER_CHUNK bills, a fraction of a second), so a run waits at most that long for a
// slot. Render jobs share no named queue: graphile-worker releases a job's queue lock
// after it has already asked for the next job, so a term's documents in one named queue
// ran one job per poll interval (about 17 documents a second on two workers, where one
// core renders about 250); now every free slot renders (test/documents/renderQueue.test.ts).
export const DOCUMENT_PRIORITY = 10;

export type PlanDocumentsPayload = { termId: string };
export type RenderDocumentsPayload = { termId: string; first: string; last: string };

/** The plan job of a term's documents (after the term is processed). */
export async function addDocumentPlanJob(db: Queryable, termId: string): Promise<void> {
  await db.query(`SELECT graphile_worker.add_job($1, json_build_object('termId', $2::text), job_key := $3, max_attempts := 25, priority := $4)`, [
    DOCUMENT_TASKS.plan,
    termId,
    `docs:${termId}:plan`,
    DOCUMENT_PRIORITY,
  ]);
}

export async function addRenderJobs(db: Queryable, termId: string, chunks: [string, string][]): Promise<void> {
  if (chunks.length === 0) return;
  await db.query(
    `SELECT graphile_worker.add_job($1, json_build_object('termId', $2::text, 'first', c.first, 'last', c.last),
                                    job_key := 'docs:' || $2 || ':' || c.first, max_attempts := 10, priority := $5)
       FROM unnest($3::text[], $4::text[]) AS c(first, last)`,
    [DOCUMENT_TASKS.render, termId, chunks.map((c) => c[0]), chunks.map((c) => c[1]), DOCUMENT_PRIORITY],
  );
}
