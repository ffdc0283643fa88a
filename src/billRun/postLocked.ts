// Posting lives with the run, not with terms' steps: the run's last job posts on its own
// when the template says so (finishRun.ts), and post-term (terms/postTerm.ts) calls the same.
import type { Queryable } from '../db/pool.ts';
import { postTermBills } from '../bills/store.ts';
import { settleAccounts } from '../settlement/settleAccounts.ts';
import { releaseDepositsOfTerm } from '../deposits/deposits.ts';
import { moveTerm } from './termStates.ts';
import { markPosted, type TermRow } from './termStore.ts';
import { queueTermDeliveries } from '../delivery/store.ts';
import { recordTermEvent } from './termEvents.ts';
import { recordBillEvents } from '../events/record.ts';

/** The move and the ledger entries, in the caller's transaction on a locked term (also the run's automatic post). */
export async function postLocked(tx: Queryable, term: TermRow, by: string): Promise<number> {
  const status = moveTerm(term.status, 'post');
  const postedIds = await postTermBills(tx, term.term_id, by);
  const posted = postedIds.length;
  // Credit already on an account (a payment before the bill, a credit note) settles the
  // bill it has just been given, in the same transaction as the posting.
  const accounts = await tx.query<{ account_id: string }>(`SELECT DISTINCT account_id FROM bill WHERE term_id = $1 AND status = 'posted'`, [term.term_id]);
  await settleAccounts(tx, term.app_code, accounts.rows.map((r) => r.account_id), by);
  await markPosted(tx, term.term_id, status, by);
  // Posted, the term is the final bill of the subscriptions terminated inside it: their
  // deposits pay what is still open of it (after the credit above) and the rest is
  // refunded, in this transaction, so a posting never leaves a deposit waiting for itself.
  await releaseDepositsOfTerm(tx, term, by);
  // One term event; one per bill only when an endpoint subscribed to bill.posted (events/record.ts).
  await recordTermEvent(tx, term, 'term.posted', status, { billsPosted: posted });
  // The bills this posting posted: a retry round's posting of a posted term announced its earlier bills again (a reviewer).
  await recordBillEvents(tx, term.app_code, term.term_id, 'bill.posted', postedIds);
  // The bills' e-mails are queued with the posting, so a posted bill is never left unsent.
  await queueTermDeliveries(tx, term.term_id, by);
  return posted;
}
