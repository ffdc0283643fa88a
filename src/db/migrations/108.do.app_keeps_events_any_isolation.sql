-- Migration 107's check that an app with events is neither deleted nor renumbered reads with
-- the deleting transaction's snapshot. At READ COMMITTED that snapshot is taken after the
-- delete has waited for every transaction writing the app's events (they lock its row), so it
-- sees them. At REPEATABLE READ or SERIALIZABLE the snapshot is older: events committed since
-- are not seen and the app was deleted under them (a reviewer; the foreign key refused it,
-- its check reading with a fresh snapshot, which a trigger cannot). So at those levels an app
-- is not deleted, renumbered or truncated at all: nothing in billrun deletes an app, and a
-- maintenance script that must do it does so at READ COMMITTED, where the check is whole.
-- TRUNCATE app, which no row trigger sees, is checked too (it waits for the writers' locks).
CREATE OR REPLACE FUNCTION app_keeps_its_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'an app is deleted, renumbered or truncated only at READ COMMITTED, where its events are all seen'
      USING ERRCODE = 'foreign_key_violation', TABLE = 'app', CONSTRAINT = 'event_app_code_fkey',
            HINT = 'Run it in a READ COMMITTED transaction: an app with events is refused there.';
  END IF;
  IF TG_OP = 'TRUNCATE' THEN
    IF EXISTS (SELECT 1 FROM event) THEN
      RAISE EXCEPTION 'truncate of table "app" violates foreign key constraint "event_app_code_fkey" on table "event"'
        USING ERRCODE = 'foreign_key_violation', TABLE = 'app', CONSTRAINT = 'event_app_code_fkey';
    END IF;
    RETURN NULL;
  END IF;
  IF EXISTS (SELECT 1 FROM event e WHERE e.app_code = OLD.app_code) THEN
    RAISE EXCEPTION 'update or delete on table "app" violates foreign key constraint "event_app_code_fkey" on table "event"'
      USING ERRCODE = 'foreign_key_violation', TABLE = 'app', CONSTRAINT = 'event_app_code_fkey',
            DETAIL = format('Key (app_code)=(%s) is still referenced from table "event".', OLD.app_code);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER app_keeps_its_events_truncate BEFORE TRUNCATE ON app
  FOR EACH STATEMENT EXECUTE FUNCTION app_keeps_its_events();
