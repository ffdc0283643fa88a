-- login_throttle: the failed logins of one e-mail from one client address, and until when
-- that pair is locked (src/auth/login.ts). It replaces app_user.failed_logins and
-- locked_until, which an attack showed wrong three ways (docs/hardening.md):
-- - the lock was read before the password check and written after it, so 60 logins sent
--   at once tried 43 passwords where 5 were allowed: an attempt is now counted before its
--   password is checked, in one statement, so concurrent ones queue on this row;
-- - only a known e-mail could be locked, so a 429 told a guesser the address has an
--   account: any e-mail is counted here, known or not;
-- - anyone could keep anyone (the admin too) locked out: the lock is per client address,
--   so a guesser locks itself, not the user signing in from elsewhere.
-- email is lower-cased; client is the request's address as the server sees it (behind a
-- proxy, see docs/operations.md). A row is deleted on a successful login and by
-- reset-password; rows idle for a day are pruned as failures are counted. app_user.failed_logins
-- and locked_until are no longer written.
CREATE TABLE login_throttle (
  email        text        NOT NULL,
  client       text        NOT NULL,
  failures     integer     NOT NULL,
  locked_until timestamptz,
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (email, client)
);
CREATE INDEX login_throttle_updated_idx ON login_throttle (updated_at);
