-- A credit note reaches the customer by e-mail like a bill (docs/corrections.md, "The credit
-- note to the customer"). A delivery now says which document it is of:
-- - document 'bill': a bill's e-mail, as before. On a rebill's e-mail credit_note_id is the
--   note that cancelled the bill it replaces, and that note's PDF is attached beside the
--   bill's: one message tells the customer of both;
-- - document 'credit note': the e-mail of a credit note whose bill was cancelled without a
--   rebill; bill_id is the cancelled bill, credit_note_id the note.
-- The product queues each once (a resend adds another row): one bill e-mail per bill, one
-- credit-note e-mail per note.
ALTER TABLE delivery ADD COLUMN document text NOT NULL DEFAULT 'bill' CHECK (document IN ('bill', 'credit note'));
ALTER TABLE delivery ADD COLUMN credit_note_id bigint REFERENCES credit_note(credit_note_id);
ALTER TABLE delivery ADD CONSTRAINT delivery_credit_note_named CHECK (document = 'bill' OR credit_note_id IS NOT NULL);

DROP INDEX delivery_one_per_bill;
CREATE UNIQUE INDEX delivery_one_per_bill ON delivery (bill_id) WHERE resend_of IS NULL AND document = 'bill';
CREATE UNIQUE INDEX delivery_one_per_credit_note ON delivery (credit_note_id) WHERE resend_of IS NULL AND document = 'credit note';
