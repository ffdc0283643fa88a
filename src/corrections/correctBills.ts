// The one way posted bills are corrected: cancel-bill, a term's cancel-and-rebill and the
// cascade from estimates all come here, on a locked term and its locked bills, in the
// caller's transaction. Each bill gets a credit note (gapless number, a ledger entry
// reversing it, its late charge reversed with it), then a new bill rated with the data as
// it is now through the bill run's own code (billRun/rateRoster.ts; a Post Account bill
// by billRun/accountRun.ts), posted and linked to the bill it corrects; then
// settlement runs once over the accounts: the credit note pays the cancelled bill, what
// payments had settled on it is released and goes, by the template's method
// (Chronology: oldest due first), to the account's open bills, the rebill among them.
import { recordBillEvents, recordEvents } from '../events/record.ts';
import type pg from 'pg';
import { validationFailed, type ErrorDetail } from '../errors.ts';
import { appToday } from '../calendar/calendar.ts';
import { moneyText } from '../rating/money.ts';
import { addBillEntries, addBillReversalEntries } from '../ledger/store.ts';
import { lockAccounts } from '../settlement/store.ts';
import { settleAccounts, settleTheseAccounts } from '../settlement/settleAccounts.ts';
import { pairWholeReversals } from '../settlement/pairReversals.ts';
import { billRowParts, copyRebills, takeBillNumbers } from '../bills/store.ts';
import { ACCOUNT_BILL_COPY_COLUMNS, accountBillRowParts } from '../bills/accountBills.ts';
import { StoredPacker } from '../billLines/storedLines.ts';
import { loadRosterInputs, rateRoster, runContext, type RosterInput, type RunContext } from '../billRun/rateRoster.ts';
import { ACCOUNT_HELD_BACK, accountBillSource, loadAccountInputs, rateAccounts } from '../billRun/accountRun.ts';
import { billSource } from '../billRun/billSource.ts';
import type { TermRow } from '../billRun/termStore.ts';
import { queueCreditNoteDeliveries, queueTermDeliveries } from '../delivery/store.ts';
import { addDocumentPlanJob } from '../documents/jobs.ts';
import { compareIds } from '../settlement/core.ts';
import { carryAgain } from '../readings/carry.ts';
import { reverseLateCharges } from '../lateCharges/reverseLateCharges.ts';
import { creditNoteOf, correctionEffect, sumAmounts, sumEffects, type BillAmounts, type CorrectionEffect } from './amounts.ts';
import { insertCreditNotes, markCancelled, rebillsOf, recordTermCorrections, takeCreditNoteNumbers, transactionTime, type LockedBill, type NewCreditNote } from './store.ts';

export const ORIGINS = ['cancel-bill', 'cancel-and-rebill', 'estimates'] as const;
export type Origin = (typeof ORIGINS)[number];

export type CorrectionOptions = { reason: string; rebill: boolean; origin: Origin; by: string; at: string };

export type CorrectedBill = {
  creditNoteId: string;
  creditNoteNumber: string;
  billId: string;
  billNumber: string;
  rebillId: string | null;
  rebillNumber: string | null;
  accountId: string;
  effect: CorrectionEffect;
  /** The cancelled bill's late charge, reversed with it (null: it had none). */
  lateChargeReversed: string | null;
};

/** Subscriptions (or accounts) per roster read of a rebill (as a bill run's chunk). */
const REBILL_SLICE = 5000;

/** The bills of one term to correct: the term and its bills, both locked. */
export type TermBills = { term: TermRow; bills: readonly LockedBill[] };

/**
 * Cancels the bills (posted bills of the locked terms, locked) and, when asked, rebills
 * them, as one correction over one or several terms of an app (the cascade from
 * estimates; a Prepaid bill with the later bills that settled its advance,
 * lockCorrection.ts): every bill is cancelled first, then the terms are rebilled in the
 * order given (oldest first), so each rebill brings forward the rebills before it and none
 * of the bills the same correction cancels; settlement then runs once over the accounts.
 * A subscription that cannot be rated now fails the whole correction with its reason
 * (nothing is written): a bill is not cancelled for a rebill that cannot be made. An
 * account bill (Post Account) is rebilled whole: every roster subscription of its account
 * rated again, one new account bill.
 */
export async function correctBills(tx: pg.PoolClient, groups: readonly TermBills[], o: CorrectionOptions): Promise<CorrectedBill[]> {
  const bills = groups.flatMap((g) => g.bills);
  if (bills.length === 0) return [];
  const appCode = groups[0]!.term.app_code;
  const today = await appToday(tx, appCode);
  const accountIds = [...new Set(bills.map((b) => b.account_id))].sort(compareIds);
  // Accounts before their entries: the balance trigger and settlement then take them in
  // one order, as payments do, and never deadlock with them.
  await lockAccounts(tx, appCode, accountIds);

  // The credit notes and their entries, every bill's before any rebill: a rebill's
  // balance brought forward is read from the ledger as it stands when it is rated.
  let number = await takeCreditNoteNumbers(tx, appCode, bills.length);
  const numbers = bills.map(() => String(number++));
  const entries = await addBillReversalEntries(tx, {
    billIds: bills.map((b) => b.bill_id),
    descriptions: bills.map((b, i) => `Credit note ${numbers[i]} cancelling bill ${b.bill_number}`),
    date: today,
    by: o.by,
  });
  await markCancelled(tx, bills.map((b) => b.bill_id));
  // A moved-in subscription's bill cancelled: its carried reading follows the old
  // subscription's readings again before its rebill starts from it (readings/carry.ts).
  if (o.rebill) {
    const movedIn = await tx.query<{ from_id: string }>(
      `SELECT s.moved_from_subscription_id AS from_id FROM subscription s
        WHERE s.subscription_id = ANY($1::bigint[]) AND s.moved_from_subscription_id IS NOT NULL`,
      [bills.flatMap((b) => (b.subscription_id === null ? [] : [b.subscription_id]))],
    );
    await carryAgain(tx, appCode, o.by, movedIn.rows.map((r) => r.from_id));
  }
  // A cancelled bill's late charge is reversed with it (the rebill is charged afresh when
  // it is late in its turn: docs/late-charges.md): before the rebill, which brings forward
  // the balance without it, and before settlement, which pairs each reversal with its charge.
  const lateReversed = await reverseLateCharges(tx, appCode, bills.map((b, i) => ({ billId: b.bill_id, creditNoteNumber: numbers[i]! })), today, o.by);

  const rebills = new Map<string, Rebill>();
  if (o.rebill) {
    for (const g of groups) for (const [oldId, r] of await rebill(tx, g.term, g.bills, today, o.by, o.at)) rebills.set(oldId, r);
  }

  const notes: NewCreditNote[] = bills.map((b, i) => {
    const c = creditNoteOf(b);
    return {
      number: numbers[i]!,
      accountId: b.account_id,
      termId: b.term_id,
      billId: b.bill_id,
      rebillId: rebills.get(b.bill_id)?.billId ?? null,
      charges: c.charges,
      tax: c.tax,
      amount: c.amount,
      entryId: entries.get(b.bill_id)!,
    };
  });
  const noteIds = await insertCreditNotes(tx, appCode, notes, { date: today, reason: o.reason, origin: o.origin, by: o.by });
  await recordTermCorrections(tx, bills.map((b) => b.bill_id), [...rebills.values()].map((r) => r.billId));

  // A bill (or late charge) nothing had paid is simply paired with its reversal
  // (set-based); an account where one had been paid is settled whole (what paid it
  // released, then spent by the method); the others only if they hold credit for the rebill.
  const reversals = [
    ...bills.map((b) => ({ entryId: entries.get(b.bill_id)!, accountId: b.account_id })),
    ...[...lateReversed.values()].map((l) => ({ entryId: l.entryId, accountId: l.accountId })),
  ];
  const paired = await pairWholeReversals(tx, appCode, reversals.map((r) => r.entryId), o.by);
  const whole = new Set(reversals.filter((r) => !paired.has(r.entryId)).map((r) => r.accountId));
  await settleTheseAccounts(tx, appCode, accountIds.filter((a) => whole.has(a)), o.by);
  await settleAccounts(tx, appCode, accountIds.filter((a) => !whole.has(a)), o.by);
  // The rebills' documents and e-mails, as a bill run's: the term's document plan marks
  // the bills without a document (the rebills) and renders them.
  if (o.rebill) {
    for (const g of groups) {
      await addDocumentPlanJob(tx, g.term.term_id);
      await queueTermDeliveries(tx, g.term.term_id, o.by);
    }
  }
  // The customer is told: a rebill's e-mail (above) carries its credit note; a note with no
  // rebill gets an e-mail of its own (docs/corrections.md, "The credit note to the customer").
  await queueCreditNoteDeliveries(tx, [...noteIds.values()], o.by);
  // Per-bill events (docs/webhooks.md): each credit note, and each rebill as the bill
  // run's postings announce theirs.
  await recordEvents(
    tx,
    appCode,
    'credit_note.made',
    bills.map((b, i) => ({
      orderKey: `bill:${b.bill_id}`,
      data: {
        creditNoteID: Number(noteIds.get(b.bill_id)),
        creditNoteNumber: Number(numbers[i]),
        billID: Number(b.bill_id),
        billNumber: Number(b.bill_number),
        accountID: Number(b.account_id),
        termID: Number(b.term_id),
        amount: notes[i]!.amount,
        reason: o.reason,
        rebillID: rebills.has(b.bill_id) ? Number(rebills.get(b.bill_id)!.billId) : null,
        lateChargeReversed: lateReversed.get(b.bill_id)?.amount ?? null,
      },
    })),
  );
  if (o.rebill) {
    for (const g of groups) {
      await recordBillEvents(tx, appCode, g.term.term_id, 'bill.posted', g.bills.flatMap((b) => (rebills.has(b.bill_id) ? [rebills.get(b.bill_id)!.billId] : [])));
    }
  }

  return bills.map((b, i) => {
    const nb = rebills.get(b.bill_id);
    return {
      creditNoteId: noteIds.get(b.bill_id)!,
      creditNoteNumber: numbers[i]!,
      billId: b.bill_id,
      billNumber: b.bill_number,
      rebillId: nb?.billId ?? null,
      rebillNumber: nb?.billNumber ?? null,
      accountId: b.account_id,
      effect: correctionEffect(b, nb?.total ?? null),
      lateChargeReversed: lateReversed.get(b.bill_id)?.amount ?? null,
    };
  });
}

/** A rebill as the correction links it: the new bill and its amounts. */
type Rebill = { billId: string; billNumber: string; total: BillAmounts };

/** A rebill rated and made into its COPY row, before it has a number. */
type RatedRebill = { parts: [string, string]; correctsBillId: string; total: BillAmounts };

/**
 * Rates the bills again with every reading as it is now, through the bill run's own code
 * (a subscription bill as a Post Subscription chunk rates it, an account bill as a Post
 * Account chunk does), then writes and posts the new bills, numbered in one block. Any
 * bill that cannot be rated fails the whole correction, each named with its reason.
 */
async function rebill(tx: pg.PoolClient, term: TermRow, bills: readonly LockedBill[], today: string, by: string, at: string): Promise<Map<string, Rebill>> {
  // No watermark: the readings as they are now (corrections since the run included).
  // A rebill rates again the bills it has just cancelled: the run's rule of not billing a
  // cancelled bill's subscription again (RunContext.corrected) is not its own.
  const { corrected: _corrected, ...ctx } = await runContext(tx, term, null);
  const packer = new StoredPacker();
  const problems: ErrorDetail[] = [];
  const work: RebillWork = { term, ctx, today, packer, problems, at };
  // A Post Account bill has no subscription (migration 060).
  const bySubscription = await subscriptionRebills(tx, work, bills.filter((b) => b.subscription_id !== null));
  const byAccount = await accountRebills(tx, work, bills.filter((b) => b.subscription_id === null));
  if (problems.length > 0) throw validationFailed(problems.slice(0, 100), 'The bills cannot be rebilled; nothing was cancelled.');

  let number = await takeBillNumbers(tx, term.app_code, bySubscription.length + byAccount.length);
  const postedAt = await transactionTime(tx);
  const numbered = (rows: RatedRebill[]) => rows.map((r) => ({ ...r, number: number++ }));
  if (bySubscription.length > 0) await copyRebills(tx, numbered(bySubscription), postedAt, packer);
  if (byAccount.length > 0) await copyRebills(tx, numbered(byAccount), postedAt, packer, ACCOUNT_BILL_COPY_COLUMNS);
  const posted = await rebillsOf(tx, term.term_id, bills.map((b) => b.bill_id));
  await addBillEntries(tx, [...posted.values()].map((p) => p.billId), by);
  const totals = new Map([...bySubscription, ...byAccount].map((r) => [r.correctsBillId, r.total]));
  return new Map([...posted.entries()].map(([oldId, p]) => [oldId, { ...p, total: totals.get(oldId)! }]));
}

type RebillWork = { term: TermRow; ctx: RunContext; today: string; packer: StoredPacker; problems: ErrorDetail[]; at: string };

/** Subscription bills: their subscriptions read by the run's roster read and rated by rateRoster. */
async function subscriptionRebills(tx: pg.PoolClient, w: RebillWork, bills: readonly LockedBill[]): Promise<RatedRebill[]> {
  if (bills.length === 0) return [];
  const bySub = new Map(bills.map((b) => [b.subscription_id!, b]));
  const inputs = await rosterInputsOf(bySub, (x) => x.subscriptionId, (from, to) => loadRosterInputs(tx, w.ctx, from, to));
  const { rated, failed } = await rateRoster(w.ctx, inputs);
  for (const f of failed) {
    w.problems.push({
      path: w.at,
      message: `bill ${bySub.get(f.input.subscriptionId)!.bill_number} (subscription ${f.input.subscriptionId}) cannot be rated again: ${f.code}: ${f.reason}`,
    });
  }
  const found = new Set(inputs.map((x) => x.subscriptionId));
  for (const b of bills) {
    if (!found.has(b.subscription_id!)) w.problems.push({ path: w.at, message: `bill ${b.bill_number}: subscription ${b.subscription_id} is not on the term's roster` });
  }
  return rated.map((r) => {
    const old = bySub.get(r.input.subscriptionId)!;
    const parts = billRowParts(w.packer, w.term.app_code, w.term.term_id, w.today, old.rebill_due, {
      subscriptionId: r.input.subscriptionId,
      accountId: r.input.accountId,
      bill: r.bill,
      // What it was rated from, as a run's bill records it: verify-bill rates it again from this.
      source: billSource(w.ctx, r.input, r.bill),
    });
    return { parts, correctsBillId: old.bill_id, total: amountsOf(r.bill) };
  });
}

/**
 * Post Account bills (docs/bill-run.md, "Post Account"): each account's roster
 * subscriptions read by the run's account read and rated into one account bill by
 * rateAccounts, as a Post Account chunk makes it; its source recorded for verify-bill.
 */
async function accountRebills(tx: pg.PoolClient, w: RebillWork, bills: readonly LockedBill[]): Promise<RatedRebill[]> {
  if (bills.length === 0) return [];
  // One live account bill per account and term (bill_one_per_account): one bill each.
  const byAccount = new Map(bills.map((b) => [b.account_id, b]));
  const inputs = await rosterInputsOf(byAccount, (x) => x.accountId, (from, to) => loadAccountInputs(tx, w.ctx, from, to));
  const { bills: rated, failed } = await rateAccounts(w.ctx, inputs);
  // The subscriptions that could not be rated; the others of their accounts are held back by them.
  for (const f of failed.filter((x) => x.code !== ACCOUNT_HELD_BACK)) {
    w.problems.push({
      path: w.at,
      message: `bill ${byAccount.get(f.input.accountId)!.bill_number} (account ${f.input.accountId}): subscription ${f.input.subscriptionId} cannot be rated again: ${f.code}: ${f.reason}`,
    });
  }
  const found = new Set(inputs.map((x) => x.accountId));
  for (const b of bills) {
    if (!found.has(b.account_id)) w.problems.push({ path: w.at, message: `bill ${b.bill_number}: account ${b.account_id} has no subscription on the term's roster` });
  }
  return rated.map((e) => {
    const old = byAccount.get(e.accountId)!;
    const parts = accountBillRowParts(w.packer, w.term.app_code, w.term.term_id, w.today, old.rebill_due, { accountId: e.accountId, bill: e.bill, source: accountBillSource(w.ctx, e) });
    return { parts, correctsBillId: old.bill_id, total: amountsOf(e.bill) };
  });
}

/**
 * The roster inputs of the keys (subscription or account ids) being rebilled, read in
 * id ranges of REBILL_SLICE keys by the run's own read of a range; a range may hold
 * others without a live bill that are not being corrected (a run's failures): left out.
 */
async function rosterInputsOf<T>(keys: ReadonlyMap<string, T>, keyOf: (x: RosterInput) => string, read: (from: string, to: string) => Promise<RosterInput[]>): Promise<RosterInput[]> {
  const ids = [...keys.keys()].sort(compareIds);
  const inputs: RosterInput[] = [];
  for (let i = 0; i < ids.length; i += REBILL_SLICE) {
    const slice = ids.slice(i, i + REBILL_SLICE);
    for (const input of await read(slice[0]!, slice[slice.length - 1]!)) if (keys.has(keyOf(input))) inputs.push(input);
  }
  return inputs;
}

const amountsOf = (b: BillAmounts): BillAmounts => ({ charges: b.charges, tax: b.tax, total: b.total });

/** The answer of a correction: counts, the sums, and its first credit notes. */
export function correctionSummary(corrected: readonly CorrectedBill[], minorUnits: number, listed = 100) {
  const effect = sumEffects(corrected.map((c) => c.effect));
  const m = (x: string) => moneyText(x, minorUnits);
  return {
    cancelled: corrected.length,
    rebilled: corrected.filter((c) => c.rebillId !== null).length,
    credited: m(effect.credited),
    rebilledAmount: m(effect.rebilled),
    change: m(effect.change),
    lateChargesReversed: m(sumAmounts(corrected.map((c) => c.lateChargeReversed))),
    creditNotes: corrected.slice(0, listed).map((c) => ({
      creditNoteID: Number(c.creditNoteId),
      creditNoteNumber: Number(c.creditNoteNumber),
      billID: Number(c.billId),
      billNumber: Number(c.billNumber),
      rebillID: c.rebillId === null ? null : Number(c.rebillId),
      rebillNumber: c.rebillNumber === null ? null : Number(c.rebillNumber),
      accountID: Number(c.accountId),
      amount: m(c.effect.credited),
      rebillAmount: c.rebillId === null ? null : m(c.effect.rebilled),
      lateChargeReversed: c.lateChargeReversed === null ? null : m(c.lateChargeReversed),
    })),
  };
}
