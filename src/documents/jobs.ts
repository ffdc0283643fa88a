// The documents' jobs on the graphile-worker queue, added with its SQL API inside the
// caller's transaction (like the bill run's): a plan per term, then one job per chunk
// of pending documents, so any number of workers render a term together.
import type { Queryable } from '../db/pool.ts';

export const DOCUMENT_TASKS = Object.freeze({ plan: 'documents-plan', render: 'documents-render' } as const);

// Documents give way to bill runs: a run's chunks (priority 0) are taken first, a render
// job is short (RENDER_CHUNK bills), and a term's render jobs share one named queue, so
// they run one at a time and hold at most one worker slot. Without this, a term's
// documents took every worker while the next term's run waited for them
// (test/terms/crash.test.ts, "two worker processes share one run"). The cost: one term's
// documents render on one core.
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
                                    job_key := 'docs:' || $2 || ':' || c.first, max_attempts := 10, priority := $5,
                                    queue_name := 'docs:' || $2)
       FROM unnest($3::text[], $4::text[]) AS c(first, last)`,
    [DOCUMENT_TASKS.render, termId, chunks.map((c) => c[0]), chunks.map((c) => c[1]), DOCUMENT_PRIORITY],
  );
}
