-- Post Account bills (docs/bill-run.md, "Post Account"): a term whose postType is
-- 'Post Account' makes one bill per account, its subscriptions' lines grouped under each.
-- Such a bill has no subscription_id (NULL) and its groups in `groups`; a Post
-- Subscription bill has a subscription_id and no groups. The CHECK keeps the two kinds
-- apart, and each kind has its own exactly-once index: one live bill per term and
-- subscription (bill_one_per_subscription, migration 034) and one live account bill per
-- term and account (bill_one_per_account, here), so a chunk run twice after a crash is
-- refused by the database rather than billing an account twice.
ALTER TABLE bill ALTER COLUMN subscription_id DROP NOT NULL;
ALTER TABLE bill ADD COLUMN groups json;
ALTER TABLE bill ADD CONSTRAINT bill_kind_check CHECK ((subscription_id IS NULL) = (groups IS NOT NULL));
CREATE UNIQUE INDEX bill_one_per_account ON bill (term_id, account_id)
  WHERE subscription_id IS NULL AND status NOT IN ('withdrawn', 'cancelled');

COMMENT ON COLUMN bill.subscription_id IS
  'the subscription billed (Post Subscription); NULL on a Post Account bill, whose subscriptions are in groups';
COMMENT ON COLUMN bill.groups IS
  'Post Account bills only: one element per subscription of the account in the term, in subscription id order: '
  '{ subscriptionId, lineCount, periodStart, periodEnd, charges, tax, total, estimated }. lines holds every group''s '
  'lines one group after the other, lineCount each; the bill''s amounts are the sums of the groups'' (its '
  'balance_brought_forward is the account''s, once). source is then { v: 1, account: true, groups: [bill source '
  'of each subscription with its subscriptionId] } (migration 028 for one bill source).';

COMMENT ON COLUMN term_chunk.from_id IS
  'first id of the chunk''s slice: a subscription id, or on a Post Account term an account id (a chunk is then a range '
  'of accounts, so an account''s subscriptions are always billed in one chunk''s transaction)';
COMMENT ON COLUMN term_chunk.to_id IS 'last id of the chunk''s slice (subscription or, Post Account, account id; inclusive)';
COMMENT ON COLUMN term_chunk.bills IS 'bills the chunk wrote (Post Account: account bills)';

-- A mismatch of a Post Account bill (verify-term) has no subscription either.
ALTER TABLE bill_mismatch ALTER COLUMN subscription_id DROP NOT NULL;
COMMENT ON COLUMN bill_mismatch.subscription_id IS 'the bill''s subscription; NULL for a Post Account bill';
