-- What corrections after posting changed of a term (corrections/correctBills.ts, in the
-- correction's transaction): how many of its bills credit notes cancelled, how many
-- rebills it holds, and what that did to its totals (the rebills' amounts less the
-- cancelled bills'). The run's own counts and totals (bill_count, total_*) stay what the run
-- made; run totals plus these are the totals of the bills in force. An officer's walk found
-- the term's page saying 6 bills and 495.48 after a cancel-and-rebill, beside a list of 7
-- bills whose bills in force came to 520.92.
ALTER TABLE term
  ADD COLUMN bills_cancelled integer NOT NULL DEFAULT 0,
  ADD COLUMN bills_rebilled integer NOT NULL DEFAULT 0,
  ADD COLUMN corrected_charges numeric(20,4) NOT NULL DEFAULT 0,
  ADD COLUMN corrected_tax numeric(20,4) NOT NULL DEFAULT 0,
  ADD COLUMN corrected_amount numeric(20,4) NOT NULL DEFAULT 0,
  ADD COLUMN corrected_brought_forward numeric(20,4) NOT NULL DEFAULT 0,
  ADD COLUMN corrected_due numeric(20,4) NOT NULL DEFAULT 0;

-- Terms corrected before this migration, from their bills: a cancelled bill takes its
-- amounts off, a rebill adds its own (a rebill cancelled in its turn does both).
UPDATE term t
   SET bills_cancelled = x.cancelled, bills_rebilled = x.rebilled,
       corrected_charges = x.charges, corrected_tax = x.tax, corrected_amount = x.amount,
       corrected_brought_forward = x.brought_forward, corrected_due = x.due
  FROM (SELECT term_id,
               count(*) FILTER (WHERE status = 'cancelled') AS cancelled,
               count(*) FILTER (WHERE corrects_bill_id IS NOT NULL) AS rebilled,
               sum(s * charges) AS charges, sum(s * tax) AS tax, sum(s * total) AS amount,
               sum(s * balance_brought_forward) AS brought_forward, sum(s * total_due) AS due
          FROM (SELECT term_id, status, corrects_bill_id, charges, tax, total, balance_brought_forward, total_due,
                       (CASE WHEN corrects_bill_id IS NOT NULL THEN 1 ELSE 0 END) - (CASE WHEN status = 'cancelled' THEN 1 ELSE 0 END) AS s
                  FROM bill WHERE status = 'cancelled' OR corrects_bill_id IS NOT NULL) b
         GROUP BY term_id) x
 WHERE t.term_id = x.term_id;
