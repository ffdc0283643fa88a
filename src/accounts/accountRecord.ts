import type { AccountRecord } from './schemas.ts';
import { moneyText } from '../rating/money.ts';
import type { AccountRow } from './store.ts';

export function accountRecord(r: AccountRow): AccountRecord {
  return {
    accountID: Number(r.account_id),
    appCode: r.app_code,
    accountNumber: r.account_number,
    name: r.name,
    email: r.email,
    phone: r.phone,
    address: r.address,
    deliveryPreference: r.delivery_preference,
    status: r.status,
    balance: moneyText(r.balance, r.minor_units),
    subscriptionCount: Number(r.subscription_count),
    createdAt: r.created_at,
    createdBy: r.created_by,
    modifiedAt: r.modified_at,
    modifiedBy: r.modified_by,
  };
}
