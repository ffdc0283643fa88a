import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { operation, requestSchema, type Services } from '../http/operation.ts';
import { Paging } from '../primitives.ts';
import { ImportInput, PaymentFilters, PaymentInput, PaymentRecord, ReverseInput } from './schemas.ts';
import { makePayment } from './makePayment.ts';
import { importPayments } from './importPayments.ts';
import { reversePayment } from './reversePayment.ts';
import { getPayments } from './getPayments.ts';

const Empty = Type.Object({});
const TAG = 'payments';

export async function paymentRoutes(app: FastifyInstance, services: Services): Promise<void> {
  operation(app, services, {
    path: '/billing/payments/make-payment',
    headers: { 'X-Billrun-Payment-Id': 'the new paymentID' },
    role: 'biller',
    tag: TAG,
    summary: 'Record a payment',
    description:
      'Records one payment and settles it against the account\'s open bills by the template\'s settlement method; what is left stays as credit. A reference used before is a CONFLICT. The new paymentID is in the X-Billrun-Payment-Id header.',
    idempotent: true,
    body: requestSchema({ method: 'Create', action: 'Create Payment' }, { data: PaymentInput }),
    data: Empty,
    handler: async (body, ctx) => {
      const id = await makePayment(ctx.db, ctx.caller, body.data);
      ctx.reply.header('x-billrun-payment-id', id);
      return {};
    },
  });

  operation(app, services, {
    path: '/billing/payments/import-payments',
    headers: { 'X-Billrun-Payment-Import-Id': 'the id of the import', 'X-Billrun-Payments-Recorded': 'how many payments were recorded', 'X-Billrun-Payments-Skipped': 'how many rows were skipped as recorded already (skipRecorded)' },
    role: 'biller',
    tag: TAG,
    summary: 'Import payments from a bank statement',
    description:
      'All or nothing: a bad row refuses the file, each bad row named (data.rows[N].field for CSV, N from 1 after the header; data.payments[i].field for JSON). The same file twice, or a reference recorded already, is a CONFLICT unless skipRecorded. Headers: X-Billrun-Payment-Import-Id, X-Billrun-Payments-Recorded, X-Billrun-Payments-Skipped.',
    idempotent: true,
    body: requestSchema({ method: 'Create', action: 'Import Payments' }, { data: ImportInput }),
    data: Empty,
    handler: async (body, ctx) => {
      const r = await importPayments(ctx.db, ctx.caller, body.data);
      ctx.reply.header('x-billrun-payment-import-id', r.importId);
      ctx.reply.header('x-billrun-payments-recorded', String(r.recorded));
      ctx.reply.header('x-billrun-payments-skipped', String(r.skipped));
      return {};
    },
  });

  operation(app, services, {
    path: '/billing/payments/reverse-payment',
    headers: { 'X-Billrun-Payment-Id': 'the paymentID of the reversal' },
    role: 'biller',
    tag: TAG,
    summary: 'Reverse a payment',
    description:
      'A bounced cheque or a chargeback: adds a reversing ledger entry with the reason; the bills the payment paid are open again. A payment is reversed once (INVALID_STATE after).',
    idempotent: true,
    body: requestSchema({ method: 'Update', action: 'Reverse Payment' }, { data: ReverseInput }),
    data: Empty,
    handler: async (body, ctx) => {
      const id = await reversePayment(ctx.db, ctx.caller, body.data);
      ctx.reply.header('x-billrun-payment-id', id);
      return {};
    },
  });

  operation(app, services, {
    path: '/billing/payments/get-payments',
    role: 'viewer',
    tag: TAG,
    summary: 'List payments',
    description: 'The app\'s payments, newest first, filtered by any of the fields, each with its settlements.',
    body: requestSchema({ method: 'Retrieve', action: 'Retrieve Payments' }, { data: Type.Optional(PaymentFilters) }),
    data: Type.Object({ payments: Type.Array(PaymentRecord), paging: Paging }),
    handler: async (body, ctx) => getPayments(ctx.db, ctx.caller, body.data ?? {}),
  });
}
