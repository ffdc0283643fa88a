// The documents' tasks for the queue's task list (src/jobs/tasks.ts). The renderer
// (pdfkit, fonts, Liquid) is loaded at the first document, not when a worker starts: a
// worker that only rates bills starts as fast as before, and takes its share of a run.
import type { TaskList } from 'graphile-worker';
import type pg from 'pg';
import { DOCUMENT_TASKS, type PlanDocumentsPayload, type RenderDocumentsPayload } from './jobs.ts';

export function documentTasks(db: pg.Pool): TaskList {
  return {
    [DOCUMENT_TASKS.plan]: async (p) => {
      const { planTermDocuments } = await import('./renderDocuments.ts');
      await planTermDocuments(db, (p as PlanDocumentsPayload).termId);
    },
    [DOCUMENT_TASKS.render]: async (p) => {
      const { termId, first, last } = p as RenderDocumentsPayload;
      const { renderChunk } = await import('./renderDocuments.ts');
      await renderChunk(db, termId, first, last);
    },
  };
}
