import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { operation, requestSchema, type Services } from '../http/operation.ts';
import { notFound, validationFailed } from '../errors.ts';
import { AccountNumber, Code, Id, NO_NUL, Paging, PagingInput } from '../primitives.ts';
import { listEvents, listSubscriptions } from '../subscriptions/store.ts';
import { subscriptionRecord } from '../subscriptions/subscriptionRecord.ts';
import { SubscriptionRecord } from '../subscriptions/schemas.ts';
import { AccountChanges, AccountInput, AccountRecord } from './schemas.ts';
import { ACCOUNT_STATUSES, defaultDelivery } from './rules.ts';
import { makeAccount } from './makeAccount.ts';
import { updateAccount } from './updateAccount.ts';
import { listAccounts } from './store.ts';
import { accountRecord } from './accountRecord.ts';

const Empty = Type.Object({});
const TAG = 'accounts';

export async function accountRoutes(app: FastifyInstance, services: Services): Promise<void> {
  operation(app, services, {
    path: '/billing/accounts/make-account',
    headers: { 'X-Billrun-Account-Id': 'the new accountID' },
    role: 'biller',
    tag: TAG,
    summary: 'Create an account',
    description: 'A customer with a zero balance. accountNumber is unique in the app (CONFLICT otherwise). The new accountID is in the X-Billrun-Account-Id header.',
    idempotent: true,
    body: requestSchema({ method: 'Create', action: 'Create Account' }, { data: Type.Object(AccountInput, { additionalProperties: false }) }),
    data: Empty,
    handler: async (body, ctx) => {
      const d = body.data;
      const id = await makeAccount(ctx.db, ctx.caller, { accountNumber: d.accountNumber, name: d.name, email: d.email ?? null, phone: d.phone ?? null, address: d.address ?? null, deliveryPreference: d.deliveryPreference ?? defaultDelivery(d.email ?? null) });
      ctx.reply.header('x-billrun-account-id', id);
      return {};
    },
  });

  operation(app, services, {
    path: '/billing/accounts/update-account',
    role: 'biller',
    tag: TAG,
    summary: 'Update an account',
    description: 'Changes name, contact (null clears email, phone, address) or status of the account with this accountNumber. The balance is changed only by the ledger.',
    body: requestSchema({ method: 'Update', action: 'Update Account' }, { data: Type.Object(AccountChanges, { additionalProperties: false }) }),
    data: Empty,
    handler: async (body, ctx) => {
      await updateAccount(ctx.db, ctx.caller, body.data);
      return {};
    },
  });

  operation(app, services, {
    path: '/billing/accounts/get-accounts',
    role: 'viewer',
    tag: TAG,
    summary: 'List accounts',
    description:
      'Filtered by any of accountID, accountNumber, name (contains, any case), search (accounts whose number starts with it, in number order, then those whose name contains it in any case), email, phone, status, batchCode and serviceCode (accounts with a subscription there that is not terminated); ordered by accountID; limit (default 100, at most 1000) and offset; paging.total counts every match, except that a search counts at most 1,000 (then paging.totalCapped is true: refine the search).',
    body: requestSchema({ method: 'Retrieve', action: 'Retrieve Accounts' }, {
      data: Type.Optional(
        Type.Object(
          {
            accountID: Type.Optional(Id),
            accountNumber: Type.Optional(AccountNumber),
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: NO_NUL })),
            search: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: NO_NUL, description: 'account number prefix or name contained, any case' })),
            email: Type.Optional(Type.String({ minLength: 1, maxLength: 254, pattern: NO_NUL })),
            phone: Type.Optional(Type.String({ minLength: 1, maxLength: 40, pattern: NO_NUL })),
            status: Type.Optional(Type.Enum(ACCOUNT_STATUSES)),
            batchCode: Type.Optional(Code),
            serviceCode: Type.Optional(Code),
            ...PagingInput,
          },
          { additionalProperties: false },
        ),
      ),
    }),
    data: Type.Object({ accounts: Type.Array(AccountRecord), paging: Type.Object({ ...Paging.properties, totalCapped: Type.Optional(Type.Boolean({ description: 'true when a search matched more than total' })) }) }),
    handler: async (body, ctx) => {
      const { limit = 100, offset = 0, ...filters } = body.data ?? {};
      const { rows, total, totalCapped } = await listAccounts(ctx.db, ctx.caller.appCode, filters, limit, offset);
      return { accounts: rows.map(accountRecord), paging: totalCapped ? { limit, offset, total, totalCapped } : { limit, offset, total } };
    },
  });

  operation(app, services, {
    path: '/billing/accounts/get-account',
    role: 'viewer',
    tag: TAG,
    summary: 'Read one account',
    description: 'The account with this accountID or accountNumber (NOT_FOUND when there is none), with all its subscriptions and their history.',
    body: requestSchema({ method: 'Retrieve', action: 'Retrieve Account' }, {
      data: Type.Object({ accountID: Type.Optional(Id), accountNumber: Type.Optional(AccountNumber) }, { additionalProperties: false }),
    }),
    data: Type.Object({ account: AccountRecord, subscriptions: Type.Array(SubscriptionRecord) }),
    handler: async (body, ctx) => {
      const { accountID, accountNumber } = body.data;
      if (accountID === undefined && accountNumber === undefined) throw validationFailed([{ path: 'data.accountNumber', message: 'give accountNumber or accountID' }]);
      const { rows } = await listAccounts(ctx.db, ctx.caller.appCode, { accountID, accountNumber }, 1, 0);
      const row = rows[0];
      if (!row) {
        // Both given and naming different accounts: the id is the one at fault when the number exists (a fuzzer was told its account number was unknown).
        if (accountID !== undefined && accountNumber !== undefined && (await listAccounts(ctx.db, ctx.caller.appCode, { accountNumber }, 1, 0)).rows.length > 0) {
          throw notFound('account', 'data.accountID');
        }
        throw notFound('account', accountNumber !== undefined ? 'data.accountNumber' : 'data.accountID');
      }
      const subs = await listSubscriptions(ctx.db, ctx.caller.appCode, { accountID: Number(row.account_id) }, 1000, 0);
      const events = await listEvents(ctx.db, subs.rows.map((s) => s.subscription_id));
      return {
        account: accountRecord(row),
        subscriptions: subs.rows.map((s) => subscriptionRecord(s, events.filter((e) => e.subscription_id === s.subscription_id))),
      };
    },
  });
}
