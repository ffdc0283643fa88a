-- term_verification: the latest verification of a term's bills (verify-term), one row per
-- term, replaced by the next verify-term (round + 1). term_round is the term's job_round
-- when it was asked: a later run of the term (retry-failures, reverse-term and a new
-- process-term) makes the verification outdated, and get-terms says so. status:
-- 'running' while chunks remain; then 'verified' (every bill re-rated to the cent) or
-- 'mismatched' (see bill_mismatch). bills and mismatches count as chunks commit.
CREATE TABLE term_verification (
  term_id       bigint PRIMARY KEY REFERENCES term(term_id),
  app_code      integer NOT NULL REFERENCES app(app_code),
  round         integer NOT NULL,
  term_round    integer NOT NULL,
  status        text NOT NULL CHECK (status IN ('running', 'verified', 'mismatched')),
  chunks_total  integer NOT NULL DEFAULT 0,
  chunks_done   integer NOT NULL DEFAULT 0,
  bills         integer NOT NULL DEFAULT 0,
  mismatches    integer NOT NULL DEFAULT 0,
  requested_at  timestamptz NOT NULL DEFAULT now(),
  requested_by  text NOT NULL,
  verified_at   timestamptz
);

-- term_verification_chunk: a slice of the term's live bills (bill ids from_id..to_id)
-- verified by one job on the queue in one transaction; done_at is set in it, so a chunk
-- run again after a crash adds nothing.
CREATE TABLE term_verification_chunk (
  term_id   bigint NOT NULL REFERENCES term(term_id),
  round     integer NOT NULL,
  chunk_no  integer NOT NULL,
  from_id   bigint NOT NULL,
  to_id     bigint NOT NULL,
  done_at   timestamptz,
  bills     integer NOT NULL DEFAULT 0,
  PRIMARY KEY (term_id, round, chunk_no)
);

-- bill_mismatch: a bill of the term's latest verification that did not re-rate to the
-- cent: differences [{ componentCode, field, stored, rerated, difference }] (a line's
-- amount or quantity, or a bill total with componentCode null) and problems
-- [{ code, path, message }] (an input that could not be found or rated). Deleted with
-- the next verify-term of the term.
CREATE TABLE bill_mismatch (
  term_id         bigint NOT NULL REFERENCES term(term_id),
  round           integer NOT NULL,
  bill_id         bigint NOT NULL,
  bill_number     bigint NOT NULL,
  subscription_id bigint NOT NULL,
  account_id      bigint NOT NULL,
  basis           text NOT NULL CHECK (basis IN ('recorded', 'trace')),
  differences     jsonb NOT NULL DEFAULT '[]',
  problems        jsonb NOT NULL DEFAULT '[]',
  found_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (term_id, bill_id)
);
