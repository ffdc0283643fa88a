-- The corrections of a subscription's readings, found by subscription: a correction recorded
-- after an earlier term was approved may have moved the reading that term's bill ended at
-- (its value, or its date out of the term), so the next term's run looks at the
-- subscription's earlier bill before starting from the readings as they are now
-- (src/billRun/meterChain.ts). Corrections are few beside readings: a small partial index.
CREATE INDEX reading_correction_subscription_idx ON reading (subscription_id, reading_id) WHERE corrects_reading_id IS NOT NULL;
