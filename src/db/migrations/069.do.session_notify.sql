-- Every server process keeps the sessions it has checked in memory for a few seconds
-- (src/auth/tokenCache.ts), so a read does not look its token up in the database. What
-- ends or changes a session is announced on the channel billrun_session by these
-- triggers, whichever path made the change (logout, make/update-user, reset-password, the
-- command line, SQL by hand), and each process drops what it holds of it. A notification
-- is sent when the transaction commits, never for one rolled back.
--   t:<token hash, hex>  a token was revoked, re-dated or deleted
--   u:<user_id>          a user's role, status, e-mail, app, password or lock changed, or
--                        the user was deleted: every token of that user
--   *                    a table was truncated: everything
CREATE FUNCTION billrun_session_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_LEVEL = 'STATEMENT' THEN
    PERFORM pg_notify('billrun_session', '*');
  ELSIF TG_TABLE_NAME = 'access_token' THEN
    PERFORM pg_notify('billrun_session', 't:' || encode(OLD.token_hash, 'hex'));
  ELSE
    PERFORM pg_notify('billrun_session', 'u:' || OLD.user_id);
  END IF;
  RETURN NULL;
END $$;
COMMENT ON FUNCTION billrun_session_changed() IS
  'Announces on channel billrun_session a change that ends or alters a session (t:<token hash hex>, u:<user_id>, * for all), so every server drops its cached copy (src/auth/tokenCache.ts).';

CREATE TRIGGER access_token_session_changed AFTER UPDATE OR DELETE ON access_token
  FOR EACH ROW EXECUTE FUNCTION billrun_session_changed();
CREATE TRIGGER access_token_session_truncated AFTER TRUNCATE ON access_token
  FOR EACH STATEMENT EXECUTE FUNCTION billrun_session_changed();

-- failed_logins alone (a wrong password) changes nothing a session holds: not announced.
CREATE TRIGGER app_user_session_changed AFTER UPDATE ON app_user
  FOR EACH ROW WHEN (
    (OLD.role, OLD.disabled, OLD.email, OLD.app_code, OLD.password_hash, OLD.locked_until)
      IS DISTINCT FROM (NEW.role, NEW.disabled, NEW.email, NEW.app_code, NEW.password_hash, NEW.locked_until)
  ) EXECUTE FUNCTION billrun_session_changed();
CREATE TRIGGER app_user_session_deleted AFTER DELETE ON app_user
  FOR EACH ROW EXECUTE FUNCTION billrun_session_changed();
CREATE TRIGGER app_user_session_truncated AFTER TRUNCATE ON app_user
  FOR EACH STATEMENT EXECUTE FUNCTION billrun_session_changed();
