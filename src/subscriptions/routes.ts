import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { operation, requestSchema, type Services } from '../http/operation.ts';
import { notFound } from '../errors.ts';
import { AccountNumber, Code, Id, Paging, PagingInput } from '../primitives.ts';
import { RecordDateText } from '../calendar/calendar.ts';
import { Documents, Inputs, Reason, SubscriptionDocument, SubscriptionInput, SubscriptionRecord, SubscriptionStatus } from './schemas.ts';
import { recordSubscriptionDocuments } from './recordDocuments.ts';
import { makeSubscription } from './makeSubscription.ts';
import { changeInputs, resumeSubscription, suspendSubscription, terminateSubscription } from './changeSubscription.ts';
import { moveSubscription } from './moveSubscription.ts';
import { listEvents, listSubscriptions } from './store.ts';
import { subscriptionRecord } from './subscriptionRecord.ts';

const Empty = Type.Object({});
const data = <P extends Parameters<typeof Type.Object>[0]>(p: P) => Type.Object(p, { additionalProperties: false });
const TAG = 'subscriptions';

export async function subscriptionRoutes(app: FastifyInstance, services: Services): Promise<void> {
  operation(app, services, {
    path: '/billing/subscriptions/make-subscription',
    headers: { 'X-Billrun-Subscription-Id': 'the new subscriptionID' },
    role: 'biller',
    tag: TAG,
    summary: 'Create a subscription',
    description:
      'Subscribes an account to a pricing template in one of the template\'s batches. Inputs are checked against the template; openingReadings (by metered input code) are recorded on readingDate (default startDate). The new subscriptionID is in the X-Billrun-Subscription-Id header.',
    idempotent: true,
    body: requestSchema({ method: 'Create', action: 'Create Subscription' }, { data: SubscriptionInput }),
    data: Empty,
    handler: async (body, ctx) => {
      ctx.reply.header('x-billrun-subscription-id', await makeSubscription(ctx.db, ctx.caller, body.data));
      return {};
    },
  });

  operation(app, services, {
    path: '/billing/subscriptions/get-subscriptions',
    role: 'viewer',
    tag: TAG,
    summary: 'List subscriptions',
    description: 'Filtered by any of subscriptionID (NOT_FOUND when there is none; the answer then carries its history), accountID, accountNumber, batchCode, serviceCode, status; ordered by subscriptionID; limit (default 100, at most 1000) and offset.',
    body: requestSchema({ method: 'Retrieve', action: 'Retrieve Subscriptions' }, {
      data: Type.Optional(
        data({
          subscriptionID: Type.Optional(Id),
          accountID: Type.Optional(Id),
          accountNumber: Type.Optional(AccountNumber),
          batchCode: Type.Optional(Code),
          serviceCode: Type.Optional(Code),
          status: Type.Optional(SubscriptionStatus),
          ...PagingInput,
        }),
      ),
    }),
    data: Type.Object({ subscriptions: Type.Array(SubscriptionRecord), paging: Paging }),
    handler: async (body, ctx) => {
      const { limit = 100, offset = 0, ...filters } = body.data ?? {};
      const { rows, total } = await listSubscriptions(ctx.db, ctx.caller.appCode, filters, limit, offset);
      if (filters.subscriptionID !== undefined) {
        if (rows.length === 0) throw notFound('subscription', 'data.subscriptionID');
        const events = await listEvents(ctx.db, rows.map((r) => r.subscription_id));
        return { subscriptions: rows.map((r) => subscriptionRecord(r, events)), paging: { limit, offset, total } };
      }
      return { subscriptions: rows.map((r) => subscriptionRecord(r)), paging: { limit, offset, total } };
    },
  });

  operation(app, services, {
    path: '/billing/subscriptions/update-subscription',
    role: 'biller',
    tag: TAG,
    summary: 'Change a subscription\'s inputs',
    description: 'Replaces connectionInputs and/or unmeteredInputs (each given group whole), checked against the template, from date.',
    body: requestSchema({ method: 'Update', action: 'Update Subscription' }, {
      data: data({
        subscriptionID: Id,
        date: RecordDateText,
        connectionInputs: Type.Optional(Inputs('the whole new set')),
        unmeteredInputs: Type.Optional(Inputs('the whole new set')),
      }),
    }),
    data: Empty,
    handler: async (body, ctx) => {
      await changeInputs(ctx.db, ctx.caller, body.data);
      return {};
    },
  });

  operation(app, services, {
    path: '/billing/subscriptions/suspend-subscription',
    role: 'biller',
    tag: TAG,
    summary: 'Suspend a subscription',
    description: 'An active subscription stops being billed from date until it is resumed.',
    body: requestSchema({ method: 'Update', action: 'Suspend Subscription' }, { data: data({ subscriptionID: Id, date: RecordDateText, reason: Type.Optional(Reason) }) }),
    data: Empty,
    handler: async (body, ctx) => {
      await suspendSubscription(ctx.db, ctx.caller, body.data);
      return {};
    },
  });

  operation(app, services, {
    path: '/billing/subscriptions/resume-subscription',
    role: 'biller',
    tag: TAG,
    summary: 'Resume a subscription',
    description: 'A suspended subscription is billed again from date.',
    body: requestSchema({ method: 'Update', action: 'Resume Subscription' }, { data: data({ subscriptionID: Id, date: RecordDateText, reason: Type.Optional(Reason) }) }),
    data: Empty,
    handler: async (body, ctx) => {
      await resumeSubscription(ctx.db, ctx.caller, body.data);
      return {};
    },
  });

  operation(app, services, {
    path: '/billing/subscriptions/terminate-subscription',
    role: 'biller',
    tag: TAG,
    summary: 'Terminate a subscription',
    description: 'Sets endDate (the last day billed) and status terminated.',
    body: requestSchema({ method: 'Update', action: 'Terminate Subscription' }, { data: data({ subscriptionID: Id, endDate: RecordDateText, reason: Type.Optional(Reason) }) }),
    data: Empty,
    handler: async (body, ctx) => {
      await terminateSubscription(ctx.db, ctx.caller, body.data);
      return {};
    },
  });

  operation(app, services, {
    path: '/billing/subscriptions/move-subscription',
    headers: { 'X-Billrun-Subscription-Id': 'the subscriptionID of the new subscription' },
    role: 'biller',
    tag: TAG,
    summary: 'Move a subscription to another template or batch',
    description:
      'Ends the subscription the day before date and starts a new one on date with the new serviceCode and/or batchCode (inputs carried over unless given). The new subscriptionID is in the X-Billrun-Subscription-Id header.',
    idempotent: true,
    body: requestSchema({ method: 'Update', action: 'Move Subscription' }, {
      data: data({
        subscriptionID: Id,
        date: RecordDateText,
        serviceCode: Type.Optional(Code),
        batchCode: Type.Optional(Code),
        connectionInputs: Type.Optional(Inputs('for the new template; default: the current ones')),
        unmeteredInputs: Type.Optional(Inputs('for the new template; default: the current ones')),
        documents: Type.Optional(Documents("recorded on the new subscription beside the old one's; the new template's requiredDocs must all be on record")),
      }),
    }),
    data: Empty,
    handler: async (body, ctx) => {
      ctx.reply.header('x-billrun-subscription-id', await moveSubscription(ctx.db, ctx.caller, body.data));
      return {};
    },
  });

  operation(app, services, {
    path: '/billing/subscriptions/record-documents',
    role: 'biller',
    tag: TAG,
    summary: 'Record documents on a subscription',
    description:
      "Records documents (name, reference, date) on a live subscription; a document recorded again replaces its reference and date, and the subscription's history (event documents_recorded) keeps what it replaced. A template's requiredDocs are checked when a subscription is made or moved.",
    body: requestSchema({ method: 'Update', action: 'Record Subscription Documents' }, {
      data: data({ subscriptionID: Id, documents: Type.Array(SubscriptionDocument, { minItems: 1, maxItems: 50 }) }),
    }),
    data: Empty,
    handler: async (body, ctx) => {
      await recordSubscriptionDocuments(ctx.db, ctx.caller, body.data);
      return {};
    },
  });
}
