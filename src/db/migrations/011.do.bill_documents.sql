-- bill_document: a bill's PDF, rendered by a job after its term is processed (or on
-- demand). Kept in PostgreSQL, not in files: workers may run on several machines that
-- share only the database, and the document then commits with its status in one
-- transaction (docs/documents.md). sha256 is the checksum of pdf, checked when read.
-- template_id / template_version say which template text made it (0: the default).
-- status: pending (queued), rendered, failed (error says why; render-documents again).
CREATE TABLE bill_document (
  bill_id          bigint PRIMARY KEY REFERENCES bill(bill_id),
  app_code         integer NOT NULL REFERENCES app(app_code),
  term_id          bigint NOT NULL,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'rendered', 'failed')),
  template_id      bigint NOT NULL,
  template_version integer NOT NULL,
  pdf              bytea,
  sha256           text,
  bytes            integer,
  attempts         integer NOT NULL DEFAULT 0,
  error            text,
  rendered_at      timestamptz,
  CHECK ((status = 'rendered') = (pdf IS NOT NULL AND sha256 IS NOT NULL))
);
CREATE INDEX bill_document_term_idx ON bill_document (term_id, status, bill_id);
