-- credit_note_document: the printable document of a credit note (docs/corrections.md,
-- "The credit note's document"): its PDF, made by documents/ with the bills' renderer,
-- Liquid layout and fonts from the product's credit-note layout, kept like a bill's
-- (bill_document): the bytes, their SHA-256 (checked on every read) and size. Made the
-- first time it is asked for and then kept: a credit note never changes, and the PDF is
-- dated with the note's own date, so the bytes are the same whenever it is made.
CREATE TABLE credit_note_document (
  credit_note_id bigint PRIMARY KEY REFERENCES credit_note(credit_note_id),
  app_code       integer NOT NULL REFERENCES app(app_code),
  pdf            bytea NOT NULL,
  sha256         text NOT NULL,
  bytes          integer NOT NULL,
  rendered_at    timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE credit_note_document IS 'The PDF of a credit note, made once (the first read) with the bills'' renderer and kept; sha256 is checked as it is read.';
COMMENT ON COLUMN credit_note_document.sha256 IS 'SHA-256 of pdf (hex), written with it; a read that finds another is refused.';
COMMENT ON COLUMN credit_note_document.bytes IS 'length(pdf).';
