-- The ledger's write path, made cheaper without loosening it (issue 12: the late-charge
-- job over 1,000,000 open bills within 30 s; docs/late-charges.md, "Speed").
--
-- 1. account keeps half of each page free. Every ledger insert updates its accounts'
--    balance (ledger_entry_apply, one UPDATE per statement); with full pages each such
--    update wrote a new row version elsewhere and a new entry in all four of account's
--    indexes (the trigram GIN among them): 20,000 balances took 3.5 s. With room on the
--    page the update is HOT (no index touched): 0.35 s. The table is twice as large
--    on disk. Rows written before this migration get the room when they are next moved
--    (or at once with `VACUUM FULL account` in a quiet hour).
ALTER TABLE account SET (fillfactor = 50);

-- 2. One key check per entry instead of two. ledger_entry had a foreign key to app and
--    another to account, each checked row by row (a quarter of a late-charge insert's
--    time); the pair (app_code, account_id) against account says both at once, and more:
--    an entry's app is its account's app (before, an entry could name another app).
--    account's own key to app keeps the app alive.
ALTER TABLE account ADD CONSTRAINT account_app_code_account_id_key UNIQUE (app_code, account_id);
COMMENT ON CONSTRAINT account_app_code_account_id_key ON account IS
  'The target of ledger_entry''s key (app_code, account_id): one check that an entry''s account exists and is of its app.';
ALTER TABLE ledger_entry ADD CONSTRAINT ledger_entry_app_account_fkey
  FOREIGN KEY (app_code, account_id) REFERENCES account (app_code, account_id) NOT VALID;
ALTER TABLE ledger_entry VALIDATE CONSTRAINT ledger_entry_app_account_fkey;
ALTER TABLE ledger_entry DROP CONSTRAINT ledger_entry_account_id_fkey;
ALTER TABLE ledger_entry DROP CONSTRAINT ledger_entry_app_code_fkey;
COMMENT ON CONSTRAINT ledger_entry_app_account_fkey ON ledger_entry IS
  'The entry''s account, of the entry''s app (replaces the separate keys to app and to account: one check per row).';
