// HTTP for deliveries: list them, resend one.
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { operation, requestSchema, type Services } from '../http/operation.ts';
import { notFound } from '../errors.ts';
import { inTransaction } from '../db/pool.ts';
import { EMAIL } from '../accounts/rules.ts';
import { deliveryIds, insertResend, listDeliveries } from './store.ts';
import { named } from '../http/openapi.ts';

const Id = Type.Integer({ minimum: 1, maximum: 9007199254740991 });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const DeliveryRecord = named('Delivery', Type.Object({
  deliveryID: Type.Integer(),
  document: Type.Enum(['bill', 'credit note'], {
    description: "bill: a bill's e-mail (a rebill's carries the credit note that cancelled the bill it replaces, creditNoteID); credit note: the e-mail of a credit note whose bill was cancelled without a rebill (billID is the cancelled bill)",
  }),
  billID: Type.Integer(),
  creditNoteID: Nullable(Type.Integer({ description: 'the credit note this e-mail is of or carries' })),
  termID: Type.Integer(),
  accountID: Type.Integer(),
  recipient: Type.String(),
  status: Type.Enum(['queued', 'sending', 'sent', 'failed']),
  messageID: Type.String({ description: 'the Message-ID every attempt of this delivery carries' }),
  attempts: Type.Integer(),
  lastError: Nullable(Type.String()),
  transport: Nullable(Type.String({ description: 'smtp, or file (an .eml under the mail folder)' })),
  resendOf: Nullable(Type.Integer()),
  queuedAt: Type.String(),
  sentAt: Nullable(Type.String()),
}));

export async function deliveryRoutes(app: FastifyInstance, services: Services): Promise<void> {
  operation(app, services, {
    path: '/billing/deliveries/get-deliveries',
    role: 'viewer',
    tag: 'deliveries',
    summary: 'List bill and credit-note e-mails and their state',
    description: 'By term, bill, credit note, account, delivery or status, in deliveryID order, 1000 at a time (afterDeliveryID pages).',
    body: requestSchema(
      { method: 'Retrieve', action: 'Retrieve Deliveries' },
      {
        data: Type.Object(
          {
            termID: Type.Optional(Id),
            billID: Type.Optional(Id),
            creditNoteID: Type.Optional(Id),
            accountID: Type.Optional(Id),
            deliveryID: Type.Optional(Id),
            status: Type.Optional(Type.Enum(['queued', 'sending', 'sent', 'failed'])),
            afterDeliveryID: Type.Optional(Type.Integer({ minimum: 0, maximum: 9007199254740991 })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
          },
          { additionalProperties: false },
        ),
      },
    ),
    data: Type.Object({ deliveries: Type.Array(DeliveryRecord) }),
    handler: async (body, ctx) => ({
      deliveries: (await listDeliveries(ctx.db, ctx.caller.appCode, body.data)).map((d) => ({
        ...deliveryIds(d),
        status: d.status,
        messageID: d.message_id,
        attempts: d.attempts,
        lastError: d.last_error,
        transport: d.transport,
        queuedAt: d.queued_text,
        sentAt: d.sent_text,
      })),
    }),
  });

  operation(app, services, {
    path: '/billing/deliveries/resend-delivery',
    headers: { 'X-Billrun-Delivery-Id': 'the new deliveryID' },
    role: 'biller',
    tag: 'deliveries',
    summary: 'Send a bill or credit-note e-mail again',
    description:
      "A new delivery of the same bill or credit note (to `recipient`, or the account's address now), with its own Message-ID: the product never sends a delivery twice by itself, so a second copy is always a person's decision. The new deliveryID is in the X-Billrun-Delivery-Id header.",
    body: requestSchema(
      { method: 'Update', action: 'Resend Delivery' },
      { data: Type.Object({ deliveryID: Id, recipient: Type.Optional(Type.String(EMAIL)) }, { additionalProperties: false }) },
    ),
    data: Type.Object({}),
    handler: async (body, ctx) => {
      const id = await inTransaction(ctx.db, (tx) => insertResend(tx, ctx.caller.appCode, body.data.deliveryID, body.data.recipient ?? null, ctx.caller.email));
      if (!id) throw notFound('delivery', 'data.deliveryID');
      ctx.reply.header('x-billrun-delivery-id', id);
      return {};
    },
  });
}
