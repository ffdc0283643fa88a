-- The keys of the three tables an import fills (account, subscription, reading) checked once
-- per statement instead of row by row (issue 15: each kind imported at 50,000 rows a second,
-- within 1.5x a COPY of the same rows; docs/accounts.md, "Keys checked per statement").
--
-- A foreign key checks each inserted row by a lookup of its parent and a lock of the parent's
-- row, the same app, template and batch row a million times over. Measured on this machine's
-- PostgreSQL 15 (a COPY of 200,000 subscriptions and their opening readings, rolled back):
-- 20.6 s with the keys, 6.7 s without; the keys to the app, the template and the batch, whose
-- row is the same for every row, cost 12 us a row each.
--
-- The rule each key kept is kept whole, and made stronger where the key could not say it:
-- - account: its app exists (account_app_code_fkey).
-- - subscription: its account exists and is of the subscription's app
--   (subscription_account_id_fkey, which now also says what subscription_app_code_fkey said);
--   its batch and its template exist and are of its app (subscription_batch_id_fkey,
--   subscription_service_id_fkey). Before, a subscription could name another app's account,
--   batch or template; no code wrote one, and the check below refuses it.
-- - reading: its subscription exists and is of the reading's app (reading_subscription_id_fkey,
--   which now also says what reading_app_code_fkey said).
-- - Each parent named is locked FOR KEY SHARE to the end of the transaction, as the key's
--   check locked it, so it is not deleted or its key changed under the new rows.
-- - A parent with children is not deleted, its key not changed, its table not truncated;
--   checked after the row is deleted or changed, so once a writer's lock is released its
--   committed children are seen. As for an event's app (migration 108), that holds at READ
--   COMMITTED only, where each statement of the check reads with a fresh snapshot; above it
--   such a parent is refused outright. Nothing in billrun deletes any of these parents.
-- The error is the key's: SQLSTATE 23503, with the key's constraint name.
-- moved_from_subscription_id and corrects_reading_id keep their foreign keys: NULL on every
-- imported row, their row-by-row check costs next to nothing.

ALTER TABLE account DROP CONSTRAINT account_app_code_fkey;
ALTER TABLE subscription DROP CONSTRAINT subscription_app_code_fkey;
ALTER TABLE subscription DROP CONSTRAINT subscription_account_id_fkey;
ALTER TABLE subscription DROP CONSTRAINT subscription_batch_id_fkey;
ALTER TABLE subscription DROP CONSTRAINT subscription_service_id_fkey;
ALTER TABLE reading DROP CONSTRAINT reading_app_code_fkey;
ALTER TABLE reading DROP CONSTRAINT reading_subscription_id_fkey;

-- The one place the key's error is worded.
CREATE FUNCTION refuse_missing_parent(child text, constraint_name text, parent text, key text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'insert or update on table "%" violates foreign key constraint "%"', child, constraint_name
    USING ERRCODE = 'foreign_key_violation', TABLE = child, CONSTRAINT = constraint_name,
          DETAIL = format('Key %s is not present in table "%s".', key, parent);
END $$;

-- Inserted rows, per statement. Each parent is read by its primary key, distinct values
-- first (the app, template and batch of 5,000 imported rows are one row each); hash and
-- merge joins are off so that the plan, cached by the function for the session whatever
-- the size of the first statement it saw, always probes the key as the foreign key did.
CREATE FUNCTION account_parents_exist() RETURNS trigger LANGUAGE plpgsql
SET enable_hashjoin = off SET enable_mergejoin = off AS $$
DECLARE
  wanted bigint;
  found bigint;
  missing text;
BEGIN
  WITH d AS MATERIALIZED (SELECT DISTINCT n.app_code FROM new_rows n)
  SELECT (SELECT count(*) FROM d),
         (SELECT count(*) FROM (SELECT 1 FROM d JOIN app p ON p.app_code = d.app_code FOR KEY SHARE OF p) l)
    INTO wanted, found;
  IF found <> wanted THEN
    SELECT format('(app_code)=(%s)', d.app_code) INTO missing FROM (SELECT DISTINCT n.app_code FROM new_rows n) d
     WHERE NOT EXISTS (SELECT 1 FROM app p WHERE p.app_code = d.app_code) LIMIT 1;
    PERFORM refuse_missing_parent('account', 'account_app_code_fkey', 'app', missing);
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION subscription_parents_exist() RETURNS trigger LANGUAGE plpgsql
SET enable_hashjoin = off SET enable_mergejoin = off AS $$
DECLARE
  wanted bigint;
  found bigint;
  missing text;
BEGIN
  WITH d AS MATERIALIZED (SELECT DISTINCT n.app_code, n.account_id FROM new_rows n)
  SELECT (SELECT count(*) FROM d),
         (SELECT count(*) FROM (SELECT 1 FROM d JOIN account p ON p.account_id = d.account_id AND p.app_code = d.app_code FOR KEY SHARE OF p) l)
    INTO wanted, found;
  IF found <> wanted THEN
    SELECT format('(app_code, account_id)=(%s, %s)', d.app_code, d.account_id) INTO missing
      FROM (SELECT DISTINCT n.app_code, n.account_id FROM new_rows n) d
     WHERE NOT EXISTS (SELECT 1 FROM account p WHERE p.account_id = d.account_id AND p.app_code = d.app_code) LIMIT 1;
    PERFORM refuse_missing_parent('subscription', 'subscription_account_id_fkey', 'account', missing);
  END IF;

  WITH d AS MATERIALIZED (SELECT DISTINCT n.app_code, n.batch_id FROM new_rows n)
  SELECT (SELECT count(*) FROM d),
         (SELECT count(*) FROM (SELECT 1 FROM d JOIN batch p ON p.batch_id = d.batch_id AND p.app_code = d.app_code FOR KEY SHARE OF p) l)
    INTO wanted, found;
  IF found <> wanted THEN
    SELECT format('(app_code, batch_id)=(%s, %s)', d.app_code, d.batch_id) INTO missing
      FROM (SELECT DISTINCT n.app_code, n.batch_id FROM new_rows n) d
     WHERE NOT EXISTS (SELECT 1 FROM batch p WHERE p.batch_id = d.batch_id AND p.app_code = d.app_code) LIMIT 1;
    PERFORM refuse_missing_parent('subscription', 'subscription_batch_id_fkey', 'batch', missing);
  END IF;

  WITH d AS MATERIALIZED (SELECT DISTINCT n.app_code, n.service_id FROM new_rows n)
  SELECT (SELECT count(*) FROM d),
         (SELECT count(*) FROM (SELECT 1 FROM d JOIN service p ON p.service_id = d.service_id AND p.app_code = d.app_code FOR KEY SHARE OF p) l)
    INTO wanted, found;
  IF found <> wanted THEN
    SELECT format('(app_code, service_id)=(%s, %s)', d.app_code, d.service_id) INTO missing
      FROM (SELECT DISTINCT n.app_code, n.service_id FROM new_rows n) d
     WHERE NOT EXISTS (SELECT 1 FROM service p WHERE p.service_id = d.service_id AND p.app_code = d.app_code) LIMIT 1;
    PERFORM refuse_missing_parent('subscription', 'subscription_service_id_fkey', 'service', missing);
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION reading_parents_exist() RETURNS trigger LANGUAGE plpgsql
SET enable_hashjoin = off SET enable_mergejoin = off AS $$
DECLARE
  wanted bigint;
  found bigint;
  missing text;
BEGIN
  WITH d AS MATERIALIZED (SELECT DISTINCT n.app_code, n.subscription_id FROM new_rows n)
  SELECT (SELECT count(*) FROM d),
         (SELECT count(*) FROM (SELECT 1 FROM d JOIN subscription p ON p.subscription_id = d.subscription_id AND p.app_code = d.app_code FOR KEY SHARE OF p) l)
    INTO wanted, found;
  IF found <> wanted THEN
    SELECT format('(app_code, subscription_id)=(%s, %s)', d.app_code, d.subscription_id) INTO missing
      FROM (SELECT DISTINCT n.app_code, n.subscription_id FROM new_rows n) d
     WHERE NOT EXISTS (SELECT 1 FROM subscription p WHERE p.subscription_id = d.subscription_id AND p.app_code = d.app_code) LIMIT 1;
    PERFORM refuse_missing_parent('reading', 'reading_subscription_id_fkey', 'subscription', missing);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER account_parents_exist AFTER INSERT ON account
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION account_parents_exist();
CREATE TRIGGER subscription_parents_exist AFTER INSERT ON subscription
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION subscription_parents_exist();
CREATE TRIGGER reading_parents_exist AFTER INSERT ON reading
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION reading_parents_exist();

-- An updated row whose key changed (nothing in billrun changes one), checked row by row as
-- the foreign key did. Arguments: the constraint, the child's columns, the parent table, the
-- parent's columns (comma-separated, in the same order).
CREATE FUNCTION row_has_parent() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  child_columns text[] := string_to_array(TG_ARGV[1], ',');
  parent_columns text[] := string_to_array(TG_ARGV[3], ',');
  condition text;
  found bigint;
  key text;
BEGIN
  SELECT string_agg(format('p.%I = ($1).%I', parent_columns[i], child_columns[i]), ' AND '),
         format('(%s)=(%s)', array_to_string(child_columns, ', '), string_agg(format('%%s'), ', '))
    INTO condition, key
    FROM generate_subscripts(child_columns, 1) AS i;
  EXECUTE format('SELECT 1 FROM %I p WHERE %s FOR KEY SHARE OF p', TG_ARGV[2], condition) USING NEW;
  GET DIAGNOSTICS found = ROW_COUNT;
  IF found = 0 THEN
    EXECUTE format('SELECT format(%L, %s)', key, (SELECT string_agg(format('($1).%I', c), ', ') FROM unnest(child_columns) AS c))
      INTO key USING NEW;
    PERFORM refuse_missing_parent(TG_TABLE_NAME, TG_ARGV[0], TG_ARGV[2], key);
  END IF;
  RETURN NULL;
END $$;

-- A parent deleted, its key changed or its table truncated while it has children. Arguments:
-- the constraint, the child table, the child's columns, the parent's columns.
CREATE FUNCTION parent_keeps_children() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  child_columns text[] := string_to_array(TG_ARGV[2], ',');
  parent_columns text[] := string_to_array(TG_ARGV[3], ',');
  condition text;
  referenced boolean;
  key text;
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'a row of "%" that "%" may refer to is deleted, changed or truncated only at READ COMMITTED, where all its children are seen', TG_TABLE_NAME, TG_ARGV[1]
      USING ERRCODE = 'foreign_key_violation', TABLE = TG_TABLE_NAME, CONSTRAINT = TG_ARGV[0],
            HINT = 'Run it in a READ COMMITTED transaction: a row with children is refused there.';
  END IF;
  IF TG_OP = 'TRUNCATE' THEN
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I)', TG_ARGV[1]) INTO referenced;
    IF referenced THEN
      RAISE EXCEPTION 'truncate of table "%" violates foreign key constraint "%" on table "%"', TG_TABLE_NAME, TG_ARGV[0], TG_ARGV[1]
        USING ERRCODE = 'foreign_key_violation', TABLE = TG_TABLE_NAME, CONSTRAINT = TG_ARGV[0],
              HINT = format('Empty table "%s" first.', TG_ARGV[1]);
    END IF;
    RETURN NULL;
  END IF;
  SELECT string_agg(format('c.%I = ($1).%I', child_columns[i], parent_columns[i]), ' AND ') INTO condition
    FROM generate_subscripts(child_columns, 1) AS i;
  EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I c WHERE %s)', TG_ARGV[1], condition) INTO referenced USING OLD;
  IF referenced THEN
    EXECUTE format('SELECT format(%L, %s)',
                   format('(%s)=(%s)', array_to_string(parent_columns, ', '), (SELECT string_agg('%s', ', ') FROM unnest(parent_columns))),
                   (SELECT string_agg(format('($1).%I', c), ', ') FROM unnest(parent_columns) AS c))
      INTO key USING OLD;
    RAISE EXCEPTION 'update or delete on table "%" violates foreign key constraint "%" on table "%"', TG_TABLE_NAME, TG_ARGV[0], TG_ARGV[1]
      USING ERRCODE = 'foreign_key_violation', TABLE = TG_TABLE_NAME, CONSTRAINT = TG_ARGV[0],
            DETAIL = format('Key %s is still referenced from table "%s".', key, TG_ARGV[1]);
  END IF;
  RETURN NULL;
END $$;

-- Each key's triggers: the child's row whose key changed (named as the key), and the parent's
-- delete, key change and truncate (named keeps_<key>_*, so that they fire after
-- app_keeps_its_events_*: triggers of one event fire in the order of their names).
DO $$
DECLARE
  k record;
  changed text;
BEGIN
  FOR k IN SELECT * FROM (VALUES
    ('account_app_code_fkey', 'account', 'app', ARRAY['app_code']),
    ('subscription_account_id_fkey', 'subscription', 'account', ARRAY['app_code', 'account_id']),
    ('subscription_batch_id_fkey', 'subscription', 'batch', ARRAY['app_code', 'batch_id']),
    ('subscription_service_id_fkey', 'subscription', 'service', ARRAY['app_code', 'service_id']),
    ('reading_subscription_id_fkey', 'reading', 'subscription', ARRAY['app_code', 'subscription_id'])
  ) AS key(name, child, parent, columns)
  LOOP
    -- The same column names on both sides: the parent's key is (app_code, <parent>_id).
    SELECT string_agg(format('OLD.%1$I IS DISTINCT FROM NEW.%1$I', c), ' OR ') INTO changed FROM unnest(k.columns) AS c;
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE OF %s ON %I FOR EACH ROW WHEN (%s) EXECUTE FUNCTION row_has_parent(%L, %L, %L, %L)',
                   k.name, array_to_string(k.columns, ', '), k.child, changed, k.name, array_to_string(k.columns, ','), k.parent, array_to_string(k.columns, ','));
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I FOR EACH ROW EXECUTE FUNCTION parent_keeps_children(%L, %L, %L, %L)',
                   'keeps_' || k.name || '_delete', k.parent, k.name, k.child, array_to_string(k.columns, ','), array_to_string(k.columns, ','));
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE OF %s ON %I FOR EACH ROW WHEN (%s) EXECUTE FUNCTION parent_keeps_children(%L, %L, %L, %L)',
                   'keeps_' || k.name || '_update', array_to_string(k.columns, ', '), k.parent, changed, k.name, k.child, array_to_string(k.columns, ','), array_to_string(k.columns, ','));
    EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION parent_keeps_children(%L, %L, %L, %L)',
                   'keeps_' || k.name || '_truncate', k.parent, k.name, k.child, array_to_string(k.columns, ','), array_to_string(k.columns, ','));
  END LOOP;
END $$;

COMMENT ON COLUMN account.app_code IS 'The account''s app: an existing app, checked per statement (trigger account_parents_exist; migration 109), not by a foreign key.';
COMMENT ON COLUMN subscription.account_id IS 'The subscription''s account, of the subscription''s app: checked per statement with its batch and template (trigger subscription_parents_exist; migration 109), not by foreign keys.';
COMMENT ON COLUMN reading.subscription_id IS 'The reading''s subscription, of the reading''s app: checked per statement (trigger reading_parents_exist; migration 109), not by a foreign key.';

-- The rows already written meet the stronger rule, as a key's VALIDATE would have checked.
DO $$
DECLARE
  bad text;
BEGIN
  SELECT format('subscription %s names an account, batch or template of another app', s.subscription_id) INTO bad
    FROM subscription s
   WHERE NOT EXISTS (SELECT 1 FROM account p WHERE p.account_id = s.account_id AND p.app_code = s.app_code)
      OR NOT EXISTS (SELECT 1 FROM batch p WHERE p.batch_id = s.batch_id AND p.app_code = s.app_code)
      OR NOT EXISTS (SELECT 1 FROM service p WHERE p.service_id = s.service_id AND p.app_code = s.app_code)
   LIMIT 1;
  IF bad IS NULL THEN
    SELECT format('reading %s names a subscription of another app', r.reading_id) INTO bad
      FROM reading r
     WHERE NOT EXISTS (SELECT 1 FROM subscription p WHERE p.subscription_id = r.subscription_id AND p.app_code = r.app_code)
     LIMIT 1;
  END IF;
  IF bad IS NOT NULL THEN
    RAISE EXCEPTION 'migration 109: %', bad USING ERRCODE = 'foreign_key_violation';
  END IF;
END $$;
