import { Type, type Static } from 'typebox';
import { ACCOUNT_STATUSES, ADDRESS, DELIVERY_PREFERENCES, EMAIL, NAME, PHONE } from './rules.ts';
import { AccountNumber } from '../primitives.ts';
import { named } from '../http/openapi.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const AccountInput = {
  accountNumber: AccountNumber,
  name: Type.String({ minLength: 1, ...NAME }),
  email: Type.Optional(Nullable(Type.String(EMAIL))),
  phone: Type.Optional(Nullable(Type.String(PHONE))),
  address: Type.Optional(Nullable(Type.String(ADDRESS))),
  deliveryPreference: Type.Optional(Type.Enum(DELIVERY_PREFERENCES, { description: 'how bills go out: email (to email), print, both or none; when not given, email for an account made with an e-mail address, print otherwise' })),
};

export const AccountChanges = {
  accountNumber: AccountNumber,
  name: Type.Optional(AccountInput.name),
  email: AccountInput.email,
  phone: AccountInput.phone,
  address: AccountInput.address,
  deliveryPreference: AccountInput.deliveryPreference,
  status: Type.Optional(Type.Enum(ACCOUNT_STATUSES, { description: 'closed: only when no subscription is active or suspended' })),
};

/** Which account an operation is about: its number or its id. */
export const AccountRef = {
  accountID: Type.Optional(Type.Integer({ minimum: 1 })),
  accountNumber: Type.Optional(AccountNumber),
};

export const AccountRecord = named('Account', Type.Object({
  accountID: Type.Integer(),
  appCode: Type.Integer(),
  accountNumber: Type.String(),
  name: Type.String(),
  email: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  address: Nullable(Type.String()),
  deliveryPreference: Type.String(),
  status: Type.Enum(ACCOUNT_STATUSES),
  balance: Type.String({ description: 'what the customer owes (negative: credit), exact decimal; changed only by the ledger' }),
  subscriptionCount: Type.Integer({ description: 'subscriptions that are not terminated' }),
  createdAt: Type.String(),
  createdBy: Type.String(),
  modifiedAt: Type.String(),
  modifiedBy: Type.String(),
}));
export type AccountRecord = Static<typeof AccountRecord>;
