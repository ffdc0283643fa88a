import { Type, type Static } from 'typebox';
import { ACCOUNT_NUMBER, ACCOUNT_STATUSES, ADDRESS, EMAIL, NAME, PHONE } from './rules.ts';

export const AccountNumber = Type.String({ minLength: 1, ...ACCOUNT_NUMBER, description: 'unique within the app' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const AccountInput = {
  accountNumber: AccountNumber,
  name: Type.String({ minLength: 1, ...NAME }),
  email: Type.Optional(Nullable(Type.String(EMAIL))),
  phone: Type.Optional(Nullable(Type.String(PHONE))),
  address: Type.Optional(Nullable(Type.String(ADDRESS))),
};

export const AccountChanges = {
  accountNumber: AccountNumber,
  name: Type.Optional(AccountInput.name),
  email: AccountInput.email,
  phone: AccountInput.phone,
  address: AccountInput.address,
  status: Type.Optional(Type.Enum(ACCOUNT_STATUSES, { description: 'closed: only when no subscription is active or suspended' })),
};

/** Which account an operation is about: its number or its id. */
export const AccountRef = {
  accountID: Type.Optional(Type.Integer({ minimum: 1 })),
  accountNumber: Type.Optional(AccountNumber),
};

export const AccountRecord = Type.Object({
  accountID: Type.Integer(),
  appCode: Type.Integer(),
  accountNumber: Type.String(),
  name: Type.String(),
  email: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  address: Nullable(Type.String()),
  status: Type.String(),
  balance: Type.String({ description: 'what the customer owes (negative: credit), exact decimal; changed only by the ledger' }),
  subscriptionCount: Type.Integer({ description: 'subscriptions that are not terminated' }),
  createdAt: Type.String(),
  createdBy: Type.String(),
  modifiedAt: Type.String(),
  modifiedBy: Type.String(),
});
export type AccountRecord = Static<typeof AccountRecord>;

export const Paging = Type.Object({
  limit: Type.Integer(),
  offset: Type.Integer(),
  total: Type.Integer({ description: 'records matching the filters' }),
});
export const PagingInput = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647, default: 0 })),
};
