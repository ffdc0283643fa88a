import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { operation, RawFile, requestSchema, type Services } from '../http/operation.ts';
import { CancelBillData, CancelTermData, Correction, CreditNoteRecord, EstimatedBills, EstimatedBillsData, GetCreditNotesData, RebillEstimatesData } from './schemas.ts';
import { cancelBill } from './cancelBill.ts';
import { cancelAndRebillTerm } from './cancelTerm.ts';
import { getCreditNotes } from './getCreditNotes.ts';
import { getEstimatedBills, rebillEstimates } from './estimates.ts';
import { getCreditNoteDocument } from './creditNoteDocument.ts';
import { Id } from '../primitives.ts';

const TAG = 'corrections';

export async function correctionRoutes(app: FastifyInstance, services: Services): Promise<void> {
  operation(app, services, {
    path: '/billing/bills/cancel-bill',
    role: 'biller',
    tag: TAG,
    summary: 'Cancel a posted bill (credit note) and rebill it',
    description:
      'The posted bill is cancelled by a credit note (its own gapless number; a ledger entry reversing the bill) and, unless rebill is false, billed again with the readings as they are now; payments that had settled it go to the open bills by the settlement method. A bill is cancelled once.',
    idempotent: true,
    body: requestSchema({ method: 'Update', action: 'Cancel Bill' }, { data: CancelBillData }),
    data: Correction,
    handler: async (body, ctx) => cancelBill(ctx.db, ctx.caller, body.data),
  });

  operation(app, services, {
    path: '/billing/terms/cancel-and-rebill',
    role: 'biller',
    tag: TAG,
    summary: "Cancel and rebill a posted term's bills",
    description: "Every posted bill of a posted term cancelled by its credit note and (unless rebill is false) billed again with the readings as they are now, in one transaction.",
    idempotent: true,
    body: requestSchema({ method: 'Update', action: 'Cancel And Rebill Term', schedule: 'optional' }, { data: CancelTermData }),
    data: Correction,
    handler: async (body, ctx) => cancelAndRebillTerm(ctx.db, ctx.caller, body.data),
  });

  operation(app, services, {
    path: '/billing/bills/get-credit-notes',
    role: 'viewer',
    tag: TAG,
    summary: 'List credit notes',
    description: 'Credit notes by id, number, bill (the cancelled one or its rebill), account or term, in id order, 100 at a time.',
    body: requestSchema({ method: 'Retrieve', action: 'Retrieve Credit Notes' }, { data: GetCreditNotesData }),
    data: Type.Object({ creditNotes: Type.Array(CreditNoteRecord) }),
    handler: async (body, ctx) => getCreditNotes(ctx.db, ctx.caller, body.data),
  });

  operation(app, services, {
    path: '/billing/bills/get-estimated-bills',
    role: 'viewer',
    tag: TAG,
    summary: "A subscription's estimated bills since its last actual reading",
    description:
      'Per meter: the last actual reading, the actual one before it, the estimates between them with the value spreading the actual consumption by days gives each; and the posted estimated bills made before the last actual reading arrived whose periods reach past the previous one.',
    body: requestSchema({ method: 'Retrieve', action: 'Retrieve Estimated Bills' }, { data: EstimatedBillsData }),
    data: EstimatedBills,
    handler: async (body, ctx) => getEstimatedBills(ctx.db, ctx.caller, body.data),
  });

  operation(app, services, {
    path: '/billing/bills/rebill-estimates',
    role: 'biller',
    tag: TAG,
    summary: 'Replace estimated bills after an actual reading',
    description:
      'What get-estimated-bills lists, in one transaction: each estimate corrected to its spread value (source spread), then each estimated bill cancelled by a credit note and rebilled, oldest term first.',
    idempotent: true,
    body: requestSchema({ method: 'Update', action: 'Rebill Estimates' }, { data: RebillEstimatesData }),
    data: Type.Object({ ...Correction.properties, spreadReadings: Type.Integer({ description: 'estimates corrected to their spread value' }) }),
    handler: async (body, ctx) => rebillEstimates(ctx.db, ctx.caller, body.data),
  });

  // The credit note's PDF, under the documents' path beside get-bill-document; made here
  // because a credit note is the corrections' (documents/ stays below corrections/).
  operation(app, services, {
    path: '/billing/documents/get-credit-note-document',
    headers: { 'X-Billrun-Document-Sha256': 'the SHA-256 of the PDF, checked against the stored one' },
    role: 'viewer',
    tag: 'documents',
    summary: "A credit note's PDF",
    description:
      'The credit note (get-credit-notes) as a document (application/pdf): its number and date, the bill it cancels, the rebill that replaces it, the lines reversed and the totals credited. Made with the bills\' renderer at the first read and kept; its checksum is checked and sent in X-Billrun-Document-Sha256.',
    raw: { types: ['application/pdf'] },
    body: requestSchema({ method: 'Retrieve', action: 'Retrieve Credit Note Document' }, { data: Type.Object({ creditNoteID: Id }, { additionalProperties: false }) }),
    data: RawFile,
    handler: async (body, ctx) =>
      getCreditNoteDocument(ctx.db, ctx.caller.appCode, body.data.creditNoteID, (k, v) => ctx.reply.header(k, v)),
  });
}
