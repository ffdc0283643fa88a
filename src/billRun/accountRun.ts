// Post Account terms (docs/bill-run.md, "Post Account"): one bill per account, its
// subscriptions' bills grouped under it. Everything the run, validate-term's preview and
// a retry do differently for such a term lives here; the rating of each subscription is
// rateRoster's, unchanged, so a group equals the Post Subscription bill of the same data.
//
// Chunks are ranges of account ids, never of subscription ids: an account's subscriptions
// are always rated, written and counted in one chunk's transaction, so the account bill is
// made whole or not at all, and a chunk run again after a crash finds the account billed
// (bill_one_per_account, migration 060, refuses a second bill in any case).
import type { Queryable } from '../db/pool.ts';
import { accountBill, attempt, sumBills, type AccountBill, type BillTotals } from '../rating/index.ts';
import { loadRosterInputs, rateRoster, type FailedEntry, type RatedEntry, type RosterInput, type RunContext } from './rateRoster.ts';
import { billSource, type BillSource } from './billSource.ts';

export const POST_ACCOUNT = 'Post Account';
export const isPostAccount = (term: { post_type: string }): boolean => term.post_type === POST_ACCOUNT;

/** The failure code of a subscription that could be rated but whose account's bill is held back by another that could not. */
export const ACCOUNT_HELD_BACK = 'ACCOUNT_HELD_BACK';

/** An account bill of the run: the account, its rated subscriptions (id order) and the bill made of them. */
export type AccountEntry = { accountId: string; subscriptions: RatedEntry[]; bill: AccountBill };

/** What bill.source holds for an account bill: each group's bill source (billSource.ts) with its subscription. */
export type AccountBillSource = { v: 1; account: true; groups: (BillSource & { subscriptionId: string })[] };

const ACCOUNT_BILLED = `EXISTS (SELECT 1 FROM bill b WHERE b.term_id = $1 AND b.account_id = s.account_id
                                  AND b.subscription_id IS NULL AND b.status NOT IN ('withdrawn', 'cancelled'))`;

/**
 * Consecutive slices of the roster's accounts without a live account bill, each about
 * `size` subscriptions (an account is never split; one with more than `size` is a slice
 * alone): [first account id, last account id] inclusive.
 */
export async function accountSlices(db: Queryable, termId: string, size: number): Promise<[string, string][]> {
  // The check per account only when the term has an account bill at all (a retry), as rosterSlices does.
  const billed = (await db.query(`SELECT 1 FROM bill b WHERE b.term_id = $1 AND b.subscription_id IS NULL AND b.status NOT IN ('withdrawn', 'cancelled') LIMIT 1`, [termId])).rowCount !== 0;
  const r = await db.query<{ from_id: string; to_id: string }>(
    `SELECT min(account_id) AS from_id, max(account_id) AS to_id
       FROM (SELECT a.account_id, ((sum(a.n) OVER (ORDER BY a.account_id))::bigint - 1) / $2::bigint AS k
               FROM (SELECT s.account_id, count(*) AS n
                       FROM term_subscription ts JOIN subscription s ON s.subscription_id = ts.subscription_id
                      WHERE ts.term_id = $1 ${billed ? `AND NOT ${ACCOUNT_BILLED}` : ''}
                      GROUP BY s.account_id) a) x
      GROUP BY k ORDER BY k`,
    [termId, size],
  );
  return r.rows.map((row) => [row.from_id, row.to_id]);
}

/**
 * The roster inputs of the accounts in [fromAccount, toAccount] that have no live account
 * bill, in subscription id order. The accounts already billed (a chunk run again) are
 * read apart, by the one-per-account index over the range, and left out here: written as
 * NOT EXISTS in the roster's statement, a plan made while the bill table grew (no
 * statistics) compared each subscription with every account bill of the term, 7 s a
 * chunk at 20,000 account bills (docs/bill-run.md, "Speed of Post Account").
 */
export async function loadAccountInputs(db: Queryable, ctx: RunContext, fromAccount: string, toAccount: string): Promise<RosterInput[]> {
  const billed = await db.query<{ account_id: string }>(
    `SELECT b.account_id FROM bill b
      WHERE b.term_id = $1 AND b.account_id BETWEEN $2 AND $3 AND b.subscription_id IS NULL AND b.status NOT IN ('withdrawn', 'cancelled')`,
    [ctx.termId, fromAccount, toAccount],
  );
  const done = new Set(billed.rows.map((b) => b.account_id));
  // An account bill cancelled without a rebill is not billed again (RunContext.corrected).
  if (ctx.corrected) {
    const cancelled = await db.query<{ account_id: string }>(
      `SELECT b.account_id FROM credit_note cn JOIN bill b ON b.bill_id = cn.bill_id
        WHERE cn.term_id = $1 AND b.subscription_id IS NULL AND b.account_id BETWEEN $2 AND $3`,
      [ctx.termId, fromAccount, toAccount],
    );
    for (const b of cancelled.rows) done.add(b.account_id);
  }
  // The accounts' subscriptions by the account index, each looked up in the roster by its
  // key (OFFSET 0 keeps the lookup a probe per subscription): as a join, the roster was
  // planned as a hash of every roster row, for every chunk (150 ms a chunk at 200,000).
  const r = await db.query<{ subscription_id: string; account_id: string }>(
    `SELECT s.subscription_id, s.account_id
       FROM subscription s
      WHERE s.account_id BETWEEN $2 AND $3
        AND EXISTS (SELECT 1 FROM term_subscription ts WHERE ts.term_id = $1 AND ts.subscription_id = s.subscription_id OFFSET 0)
      ORDER BY s.subscription_id`,
    [ctx.termId, fromAccount, toAccount],
  );
  const ids = r.rows.filter((x) => !done.has(x.account_id)).map((x) => x.subscription_id);
  if (ids.length === 0) return [];
  return loadRosterInputs(db, ctx, ids[0]!, ids[ids.length - 1]!, { ids });
}

/**
 * Rates the inputs (rateRoster) and makes one bill per account. An account with a
 * subscription that cannot be rated gets no bill in this round: its failing
 * subscriptions are failures with their own reason, and its other subscriptions are
 * failures ACCOUNT_HELD_BACK naming them, so the term's failures show every subscription
 * left unbilled and why, and retry-failures bills the account whole once it is fixed.
 * Held back rather than billed without the failing subscription: a later bill for it
 * would be a second bill of the account in the term, and the account bill would not be
 * the account's whole period.
 */
export async function rateAccounts(ctx: RunContext, inputs: RosterInput[]): Promise<{ bills: AccountEntry[]; failed: FailedEntry[] }> {
  const { rated, failed } = await rateRoster(ctx, inputs);
  const failing = new Map<string, string[]>();
  for (const f of failed) {
    const ids = failing.get(f.input.accountId);
    if (ids === undefined) failing.set(f.input.accountId, [f.input.subscriptionId]);
    else ids.push(f.input.subscriptionId);
  }
  const byAccount = new Map<string, RatedEntry[]>();
  const allFailed = [...failed];
  for (const r of rated) {
    const blocking = failing.get(r.input.accountId);
    if (blocking !== undefined) {
      allFailed.push({
        input: r.input,
        code: ACCOUNT_HELD_BACK,
        reason: `account ${r.input.accountId} is billed as one bill and subscription ${blocking.join(', ')} of it could not be rated: fix ${blocking.length === 1 ? 'it' : 'them'} and retry`,
        details: blocking.map((id) => ({ path: 'subscriptionID', message: `subscription ${id} could not be rated` })),
      });
      continue;
    }
    const group = byAccount.get(r.input.accountId);
    if (group === undefined) byAccount.set(r.input.accountId, [r]);
    else group.push(r);
  }
  const bills: AccountEntry[] = [];
  for (const [accountId, subscriptions] of byAccount) {
    const made = attempt(() =>
      accountBill(
        subscriptions.map((s) => ({ subscriptionId: s.input.subscriptionId, bill: s.bill })),
        subscriptions[0]!.input.balance,
        ctx.minorUnits,
      ),
    );
    if (made.ok) bills.push({ accountId, subscriptions, bill: made.value });
    // The account bill itself refused (its sum past the largest amount): each of its
    // subscriptions is a failure with that reason, as a subscription's own refusal is.
    else for (const s of subscriptions) allFailed.push({ input: s.input, code: made.error.code, reason: made.error.message, details: made.error.details ?? [] });
  }
  bills.sort((a, b) => compareIds(a.accountId, b.accountId));
  allFailed.sort((a, b) => compareIds(a.input.subscriptionId, b.input.subscriptionId));
  return { bills, failed: allFailed };
}

const compareIds = (a: string, b: string) => (a.length - b.length) || (a < b ? -1 : a > b ? 1 : 0);

/** What an account bill was rated from (bill.source), for verify-bill. */
export function accountBillSource(ctx: RunContext, entry: AccountEntry): AccountBillSource {
  return { v: 1, account: true, groups: entry.subscriptions.map((s) => ({ subscriptionId: s.input.subscriptionId, ...billSource(ctx, s.input) })) };
}

export const isAccountBillSource = (source: unknown): source is AccountBillSource =>
  typeof source === 'object' && source !== null && (source as { account?: unknown }).account === true;

/** The account bills' amounts added to `to` (the term's totals count each account's balance once). */
export const sumAccountBills = (entries: AccountEntry[], to?: BillTotals): BillTotals => sumBills(entries.map((e) => e.bill), to);
