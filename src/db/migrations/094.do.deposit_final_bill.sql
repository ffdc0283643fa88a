-- A security deposit is applied to the subscription's final bill (issue 16, part 4;
-- docs/payments.md, "Deposits"). Terminating a subscription no longer releases its deposits
-- at once when its final bill is still to come: they stay held until the posting of the
-- term of its template and batch that holds its end date, which releases them in its own
-- transaction (src/deposits/deposits.ts).
ALTER TABLE deposit ADD COLUMN ended_on date;
COMMENT ON COLUMN deposit.ended_on IS
  'Set when the subscription holding the deposit is terminated and its final bill is still to come: the subscription''s end date. '
  'While released_on is null, the posting of the term of its template and batch that holds this day (or of a later one, when no '
  'term holds it) releases the deposit; release-deposits releases it by hand. Kept once released. Null: not terminated, or released '
  'at termination (its final bill was posted already).';

-- The deposits waiting for a final bill, found by each posting without scanning every held deposit.
CREATE INDEX deposit_awaiting_idx ON deposit (app_code, ended_on) WHERE released_on IS NULL AND ended_on IS NOT NULL;
