-- A ledger entry's account, of the entry's app, checked by the update of the balances the
-- entries move, instead of by a foreign key row by row (migration 109 for the same reason:
-- a posting writes a million entries in a statement, the late-charge job up to as many;
-- docs/payments.md, "The ledger").
--
-- ledger_entry_apply already updates, once per statement, the balance of every account the
-- new entries name: that update finds each account by its key and locks its row (FOR NO KEY
-- UPDATE, stronger than the key's FOR KEY SHARE), so the account cannot be deleted or
-- re-keyed under the entries. The only thing the foreign key added was the refusal of an
-- entry naming no account of its app; the update now counts the accounts it found and
-- refuses the statement when one is missing, with the key's error (SQLSTATE 23503,
-- constraint ledger_entry_app_account_fkey). An account with entries is neither deleted,
-- re-keyed nor truncated (the triggers of migration 109, with their READ COMMITTED rule).
ALTER TABLE ledger_entry DROP CONSTRAINT ledger_entry_app_account_fkey;

CREATE OR REPLACE FUNCTION ledger_entry_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  wanted bigint;
  found bigint;
  missing text;
BEGIN
  WITH moved AS MATERIALIZED (
         SELECT app_code, account_id, sum(amount) AS total FROM new_entries GROUP BY app_code, account_id),
       applied AS (
         UPDATE account a SET balance = a.balance + m.total
           FROM moved m
          WHERE a.account_id = m.account_id AND a.app_code = m.app_code
         RETURNING 1)
  SELECT (SELECT count(*) FROM moved), (SELECT count(*) FROM applied) INTO wanted, found;
  IF found <> wanted THEN
    SELECT format('(app_code, account_id)=(%s, %s)', d.app_code, d.account_id) INTO missing
      FROM (SELECT DISTINCT n.app_code, n.account_id FROM new_entries n) d
     WHERE NOT EXISTS (SELECT 1 FROM account p WHERE p.account_id = d.account_id AND p.app_code = d.app_code) LIMIT 1;
    PERFORM refuse_missing_parent('ledger_entry', 'ledger_entry_app_account_fkey', 'account', missing);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER keeps_ledger_entry_app_account_fkey_delete AFTER DELETE ON account FOR EACH ROW
  EXECUTE FUNCTION parent_keeps_children('ledger_entry_app_account_fkey', 'ledger_entry', 'account_id,app_code', 'account_id,app_code');
CREATE TRIGGER keeps_ledger_entry_app_account_fkey_update AFTER UPDATE OF app_code, account_id ON account FOR EACH ROW
  WHEN (OLD.app_code IS DISTINCT FROM NEW.app_code OR OLD.account_id IS DISTINCT FROM NEW.account_id)
  EXECUTE FUNCTION parent_keeps_children('ledger_entry_app_account_fkey', 'ledger_entry', 'account_id,app_code', 'account_id,app_code');
CREATE TRIGGER keeps_ledger_entry_app_account_fkey_truncate BEFORE TRUNCATE ON account FOR EACH STATEMENT
  EXECUTE FUNCTION parent_keeps_children('ledger_entry_app_account_fkey', 'ledger_entry', 'account_id,app_code', 'account_id,app_code');

COMMENT ON COLUMN ledger_entry.account_id IS 'The entry''s account, of the entry''s app: checked per statement by the balance update (ledger_entry_apply; migration 110), not by a foreign key.';
