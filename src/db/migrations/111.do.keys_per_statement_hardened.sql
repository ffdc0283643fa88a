-- Two holes a reviewer found in the keys checked per statement (migrations 109 and 110).
--
-- 1. A subscription's app never changes. A reading's check locks its subscription FOR KEY
--    SHARE, which conflicts only with changes of a column in a unique index; app_code is in
--    none of subscription's, so a move of a subscription to another app (its account, batch
--    and template moved with it) did not wait for a reading being written, nor the reading
--    for the move: both committed, and the reading named another app's subscription. A
--    subscription belongs to the app it was made in (nothing in billrun changes it), so the
--    change is refused; an index on (app_code, subscription_id) would have made the lock
--    conflict too, at the cost of one more index on every subscription written.
--    account, batch and service carry app_code in a unique key already, so their rows' locks
--    cover it.
-- 2. The check functions find their tables by search_path, where a session's temporary
--    tables come first: a temporary table named subscription stood in for the real one. Each
--    function now searches the schema it was made in, then pg_temp last (as PostgreSQL
--    advises for SECURITY DEFINER functions; a foreign key names its table by OID).
CREATE FUNCTION subscription_app_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'a subscription''s app does not change (subscription %)', OLD.subscription_id
    USING ERRCODE = 'restrict_violation', TABLE = 'subscription',
          DETAIL = 'A subscription, its readings and its bills belong to the app it was made in.';
END $$;
CREATE TRIGGER subscription_app_fixed BEFORE UPDATE OF app_code ON subscription FOR EACH ROW
  WHEN (OLD.app_code IS DISTINCT FROM NEW.app_code) EXECUTE FUNCTION subscription_app_fixed();

DO $$
DECLARE
  f text;
BEGIN
  FOREACH f IN ARRAY ARRAY['refuse_missing_parent(text, text, text, text)', 'account_parents_exist()', 'subscription_parents_exist()',
                           'reading_parents_exist()', 'row_has_parent()', 'parent_keeps_children()', 'ledger_entry_apply()',
                           'ledger_entry_open()', 'event_app_exists()', 'app_keeps_its_events()']
  LOOP
    EXECUTE format('ALTER FUNCTION %s SET search_path = %I, pg_temp', f, current_schema());
  END LOOP;
END $$;
