// HTTP for documents: invoice and e-mail templates, bill and credit-note documents and the print extract.
// The renderer (pdfkit and its fonts) is imported by the operations that draw, when
// first called: `npm run worker` and the server start without it (a worker that starts
// slowly misses its share of a bill run).
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { operation, RawFile, requestSchema, type Services } from '../http/operation.ts';
import { notFound } from '../errors.ts';
import { dateText, readPeriod } from '../calendar/calendar.ts';
import { ArchiveTemplateData, GetTemplatesData, MakeTemplateData, PreviewTemplateData, TemplateRecord, UpdateTemplateData } from './schemas.ts';
import { makeDocumentTemplate } from './makeDocumentTemplate.ts';
import { updateDocumentTemplate } from './updateDocumentTemplate.ts';
import { listTemplates, setTemplateArchive } from './templateStore.ts';
import { defaultRecord, templateRecord } from './resolveTemplate.ts';
import { TEMPLATE_KINDS } from './schemas.ts';
import { inTransaction } from '../db/pool.ts';
import { getBillDocument } from './getBillDocument.ts';
import { listDocuments } from './documentStore.ts';
import { named } from '../http/openapi.ts';

const Id = Type.Integer({ minimum: 1, maximum: 9007199254740991 });
const DocumentRecord = named('BillDocument', Type.Object({
  billID: Type.Integer(),
  status: Type.Enum(['pending', 'rendered', 'failed']),
  sha256: Type.Union([Type.String(), Type.Null()]),
  bytes: Type.Union([Type.Integer(), Type.Null()]),
  templateID: Type.Integer(),
  templateVersion: Type.Integer(),
  attempts: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
  renderedAt: Type.Union([Type.String(), Type.Null()]),
}));

const Empty = Type.Object({});
const TAG = 'documents';

export async function documentRoutes(app: FastifyInstance, services: Services): Promise<void> {
  operation(app, services, {
    path: '/billing/documents/make-document-template',
    headers: { 'X-Billrun-Template-Id': 'the new templateID' },
    role: 'admin',
    tag: TAG,
    summary: 'Create an invoice or e-mail template',
    description: 'Checked with the sample bill before it is saved: an error is refused naming its line. The new templateID is in the X-Billrun-Template-Id header.',
    idempotent: true,
    body: requestSchema({ method: 'Create', action: 'Create Document Template' }, { data: MakeTemplateData }),
    data: Empty,
    handler: async (body, ctx) => {
      ctx.reply.header('x-billrun-template-id', await makeDocumentTemplate(ctx.db, ctx.caller, body.data));
      return {};
    },
  });

  operation(app, services, {
    path: '/billing/documents/get-document-templates',
    role: 'viewer',
    tag: TAG,
    summary: 'List invoice and e-mail templates',
    description: 'The defaults (templateID 0) first, then the app\'s own, at their current version (or `version` of one templateID).',
    body: requestSchema({ method: 'Retrieve', action: 'Retrieve Document Templates' }, { data: GetTemplatesData }),
    data: Type.Object({ templates: Type.Array(TemplateRecord) }),
    handler: async (body, ctx) => {
      const d = body.data;
      const defaults = d.templateID === undefined || d.templateID === 0 ? TEMPLATE_KINDS.filter((k) => !d.kind || d.kind === k).map(defaultRecord) : [];
      const rows =
        d.templateID === 0
          ? []
          : await listTemplates(ctx.db, ctx.caller.appCode, {
              ...(d.kind ? { kind: d.kind } : {}),
              ...(d.templateID !== undefined ? { templateId: d.templateID } : {}),
              ...(d.version !== undefined && d.templateID !== undefined ? { version: d.version } : {}),
            });
      if (d.templateID !== undefined && d.templateID !== 0 && rows.length === 0) {
        // The template exists without that version: the version is at fault (a fuzzer was told the template was unknown).
        const exists = d.version !== undefined && (await listTemplates(ctx.db, ctx.caller.appCode, { ...(d.kind ? { kind: d.kind } : {}), templateId: d.templateID })).length > 0;
        throw notFound(exists ? 'document template version' : 'document template', exists ? 'data.version' : 'data.templateID');
      }
      return { templates: [...defaults, ...rows.map(templateRecord)] };
    },
  });

  operation(app, services, {
    path: '/billing/documents/update-document-template',
    headers: { 'X-Billrun-Template-Version': 'the new version of the template' },
    role: 'admin',
    tag: TAG,
    summary: 'Update an invoice or e-mail template',
    description: 'Adds a version (in the X-Billrun-Template-Version header). Documents already rendered keep the version they were rendered with.',
    body: requestSchema({ method: 'Update', action: 'Update Document Template' }, { data: UpdateTemplateData }),
    data: Empty,
    handler: async (body, ctx) => {
      ctx.reply.header('x-billrun-template-version', String(await updateDocumentTemplate(ctx.db, ctx.caller, body.data)));
      return {};
    },
  });

  operation(app, services, {
    path: '/billing/documents/archive-document-template',
    role: 'admin',
    tag: TAG,
    summary: 'Archive or restore an invoice or e-mail template',
    description: 'archiveStatus 1: new pricing templates may no longer name it; documents made with it stay readable.',
    body: requestSchema({ method: 'Update', action: 'Archive Document Template' }, { data: ArchiveTemplateData }),
    data: Empty,
    handler: async (body, ctx) => {
      if (!(await setTemplateArchive(ctx.db, ctx.caller.appCode, body.data.templateID, body.data.archiveStatus, ctx.caller.email))) {
        throw notFound('document template', 'data.templateID');
      }
      return {};
    },
  });

  operation(app, services, {
    path: '/billing/documents/preview-document-template',
    role: 'viewer',
    tag: TAG,
    summary: 'Preview a template with the sample bill',
    description: 'A saved template (templateID, with kind for 0) or a draft (kind, body, subject; admin only, as saving one is). An invoice answers its PDF; an e-mail its subject and text.',
    raw: { types: ['application/pdf', 'text/plain'] },
    body: requestSchema({ method: 'Retrieve', action: 'Preview Document Template' }, { data: PreviewTemplateData }),
    data: RawFile,
    handler: async (body, ctx) => (await import('./previewTemplate.ts')).previewTemplate(ctx.db, ctx.caller.appCode, ctx.caller.role, body.data),
  });

  operation(app, services, {
    path: '/billing/documents/get-bill-document',
    headers: { 'X-Billrun-Document-Sha256': 'the SHA-256 of the PDF, checked against the stored one', 'X-Billrun-Template-Id': 'the document template it was rendered with', 'X-Billrun-Template-Version': 'the version of that template' },
    role: 'viewer',
    tag: TAG,
    summary: "A bill's PDF",
    description: 'The stored document (application/pdf), its checksum checked; X-Billrun-Document-Sha256 and the template version it was rendered with in headers. INVALID_STATE (409) while it is being rendered (ask again in a moment) or when its rendering failed; NOT_FOUND for a bill that will have no document.',
    raw: { types: ['application/pdf'] },
    body: requestSchema({ method: 'Retrieve', action: 'Retrieve Bill Document' }, { data: Type.Object({ billID: Id }, { additionalProperties: false }) }),
    data: RawFile,
    handler: async (body, ctx) => getBillDocument(ctx.db, ctx.caller.appCode, body.data.billID, (k, v) => ctx.reply.header(k, v)),
  });

  operation(app, services, {
    path: '/billing/documents/get-bill-documents',
    role: 'viewer',
    tag: TAG,
    summary: "A term's documents and their state",
    description: 'In billID order, 1000 at a time (afterBillID pages).',
    body: requestSchema(
      { method: 'Retrieve', action: 'Retrieve Bill Documents' },
      {
        data: Type.Object(
          {
            termID: Id,
            status: Type.Optional(Type.Enum(['pending', 'rendered', 'failed'])),
            afterBillID: Type.Optional(Type.Integer({ minimum: 0, maximum: 9007199254740991 })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
          },
          { additionalProperties: false },
        ),
      },
    ),
    data: Type.Object({ documents: Type.Array(DocumentRecord) }),
    handler: async (body, ctx) => {
      const d = body.data;
      const rows = await listDocuments(ctx.db, ctx.caller.appCode, d.termID, d.status, d.afterBillID ?? 0, d.limit ?? 1000);
      return {
        documents: rows.map((r) => ({
          billID: Number(r.bill_id),
          status: r.status,
          sha256: r.sha256,
          bytes: r.bytes,
          templateID: Number(r.template_id),
          templateVersion: r.template_version,
          attempts: r.attempts,
          error: r.error,
          renderedAt: r.rendered_at,
        })),
      };
    },
  });

  operation(app, services, {
    path: '/billing/documents/render-bill-documents',
    headers: { 'X-Billrun-Documents': 'how many documents were queued' },
    role: 'biller',
    tag: TAG,
    summary: "Render a term's documents again",
    description:
      'Queues rendering with the template version now in force: the failed and missing documents (default), every bill (all: true), or the bills in billIDs. X-Billrun-Documents says how many were queued.',
    body: requestSchema(
      { method: 'Update', action: 'Render Bill Documents' },
      {
        data: Type.Object(
          { termID: Id, all: Type.Optional(Type.Boolean()), billIDs: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: 10000 })) },
          { additionalProperties: false },
        ),
      },
    ),
    data: Empty,
    handler: async (body, ctx) => {
      const d = body.data;
      const { planDocuments } = await import('./renderDocuments.ts');
      const n = await inTransaction(ctx.db, (tx) =>
        planDocuments(tx, ctx.caller.appCode, String(d.termID), { all: d.all === true || d.billIDs !== undefined, ...(d.billIDs ? { billIds: d.billIDs } : {}) }),
      );
      ctx.reply.header('x-billrun-documents', String(n));
      return {};
    },
  });

  operation(app, services, {
    path: '/billing/documents/get-print-extract',
    role: 'biller',
    tag: TAG,
    summary: "A term's print extract",
    description:
      "Every bill of the term (only: 'print' keeps accounts that take paper) streamed as CSV or JSON lines of its printable fields, or as one PDF of all its documents.",
    raw: { types: ['text/csv', 'application/x-ndjson', 'application/pdf'] },
    body: requestSchema(
      { method: 'Retrieve', action: 'Retrieve Print Extract' },
      {
        data: Type.Object(
          { termID: Id, format: Type.Enum(['csv', 'jsonl', 'pdf']), only: Type.Optional(Type.Literal('print')) },
          { additionalProperties: false },
        ),
      },
    ),
    data: RawFile,
    handler: async (body, ctx) => (await import('./printExtract.ts')).printExtract(ctx.db, ctx.caller.appCode, body.data),
  });

  operation(app, services, {
    path: '/billing/documents/get-credit-note-extract',
    role: 'biller',
    tag: TAG,
    summary: "Credit notes' print extract",
    description:
      "The credit notes dated from `from` to `to` (dd/mm/yyyy, both included, at most 366 days; only: 'print' keeps accounts that take paper), in number order, streamed as CSV or JSON lines of their printable fields, or as one PDF of their documents: what a print house prints and posts beside the term's bills (a credit note is e-mailed only to accounts that take e-mail).",
    raw: { types: ['text/csv', 'application/x-ndjson', 'application/pdf'] },
    body: requestSchema(
      { method: 'Retrieve', action: 'Retrieve Credit Note Extract' },
      {
        data: Type.Object(
          { from: dateText('the first credit note date'), to: dateText('the last credit note date'), format: Type.Enum(['csv', 'jsonl', 'pdf']), only: Type.Optional(Type.Literal('print')) },
          { additionalProperties: false },
        ),
      },
    ),
    data: RawFile,
    handler: async (body, ctx) => (await import('./printExtract.ts')).creditNoteExtract(ctx.db, ctx.caller.appCode, { ...body.data, ...readPeriod(body.data, 366) }),
  });
}
