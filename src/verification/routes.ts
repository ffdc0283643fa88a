import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { operation, requestSchema, type Services } from '../http/operation.ts';
import { Id } from '../primitives.ts';
import { BillVerification, TermVerificationAnswer, TermVerificationData, VerifyBillData } from './schemas.ts';
import { verifyBill } from './verifyBill.ts';
import { getVerification, verifyTerm } from './termVerification.ts';

export async function verificationRoutes(app: FastifyInstance, services: Services): Promise<void> {
  operation(app, services, {
    path: '/billing/bills/verify-bill',
    role: 'viewer',
    tag: 'bills',
    summary: 'Verify a bill',
    description:
      'Rates a stored bill again from what it was made from (the term\'s template version, the readings it used as they were then, its balance brought forward and subscription data) through the bill run\'s own rating, and answers whether it matches to the last decimal, with every line or total that differs (stored, rerated, stored minus rerated). Writes nothing.',
    body: requestSchema({ method: 'Retrieve', action: 'Verify Bill' }, { data: VerifyBillData }),
    data: BillVerification,
    handler: async (body, ctx) => verifyBill(ctx.db, ctx.caller, body.data),
  });

  operation(app, services, {
    path: '/billing/terms/verify-term',
    role: 'biller',
    tag: 'terms and the bill run',
    summary: "Verify a term's bills",
    description:
      "Verifies every live bill of a Processed or Posted term as jobs on the queue (chunks of BILLRUN_CHUNK_SIZE bills); progress and the verdict in get-terms' verification and get-verification. A new call replaces the previous verification.",
    idempotent: true,
    body: requestSchema({ method: 'Update', action: 'Verify Term', schedule: true }, { data: Type.Object({ termID: Id }, { additionalProperties: false }) }),
    data: Type.Object({}),
    handler: async (body, ctx) => {
      await verifyTerm(ctx.db, ctx.caller, body.data.termID, ctx.config.billRunChunkSize);
      return {};
    },
  });

  operation(app, services, {
    path: '/billing/terms/get-verification',
    role: 'viewer',
    tag: 'terms and the bill run',
    summary: "A term's verification and its mismatched bills",
    description: "The latest verification of the term (as in get-terms) and the bills that did not match, by billID, with their differences; limit (default 100, at most 1000) and offset.",
    body: requestSchema({ method: 'Retrieve', action: 'Retrieve Term Verification', schedule: true }, { data: TermVerificationData }),
    data: TermVerificationAnswer,
    handler: async (body, ctx) => getVerification(ctx.db, ctx.caller, body.data.termID, body.data.limit ?? 100, body.data.offset ?? 0),
  });
}
