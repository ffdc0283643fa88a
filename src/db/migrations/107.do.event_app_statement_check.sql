-- event.app_code names an existing app, checked once per statement instead of by a foreign
-- key row by row. A posting writes a bill.posted event per bill and the late-charge job a
-- late_charge.made per charge, up to a million rows a statement; the key's check of each
-- row (a lookup of app and a lock of its row, the same app every time) cost about 2 us a
-- row, as much as a third of the lean event row itself (docs/late-charges.md). The rule is
-- the key's, kept whole:
-- - every app an inserted or updated row names exists, and its row is locked FOR KEY SHARE
--   to the end of the transaction, as the key's check locked it, so it cannot be deleted
--   or renumbered under the new rows;
-- - an app that has events cannot be deleted nor its code changed (checked after the row
--   is deleted or changed, so once a writer's lock is released its committed events are seen).
-- The error is the key's: SQLSTATE 23503, constraint event_app_code_fkey.
ALTER TABLE event DROP CONSTRAINT event_app_code_fkey;

CREATE FUNCTION event_app_exists() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM app a WHERE a.app_code IN (SELECT n.app_code FROM new_events n) FOR KEY SHARE OF a;
  IF EXISTS (SELECT 1 FROM new_events n WHERE NOT EXISTS (SELECT 1 FROM app a WHERE a.app_code = n.app_code)) THEN
    RAISE EXCEPTION 'insert or update on table "event" violates foreign key constraint "event_app_code_fkey"'
      USING ERRCODE = 'foreign_key_violation', TABLE = 'event', CONSTRAINT = 'event_app_code_fkey',
            DETAIL = 'An event names an app that does not exist.';
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER event_app_exists_insert AFTER INSERT ON event
  REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION event_app_exists();
CREATE TRIGGER event_app_exists_update AFTER UPDATE ON event
  REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION event_app_exists();

CREATE FUNCTION app_keeps_its_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM event e WHERE e.app_code = OLD.app_code) THEN
    RAISE EXCEPTION 'update or delete on table "app" violates foreign key constraint "event_app_code_fkey" on table "event"'
      USING ERRCODE = 'foreign_key_violation', TABLE = 'app', CONSTRAINT = 'event_app_code_fkey',
            DETAIL = format('Key (app_code)=(%s) is still referenced from table "event".', OLD.app_code);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER app_keeps_its_events_delete AFTER DELETE ON app
  FOR EACH ROW EXECUTE FUNCTION app_keeps_its_events();
CREATE TRIGGER app_keeps_its_events_update AFTER UPDATE OF app_code ON app
  FOR EACH ROW WHEN (OLD.app_code IS DISTINCT FROM NEW.app_code) EXECUTE FUNCTION app_keeps_its_events();

COMMENT ON COLUMN event.app_code IS 'The app the event is of: an existing app, checked per statement (triggers event_app_exists_*, app_keeps_its_events_*; migration 107), not by a foreign key.';
