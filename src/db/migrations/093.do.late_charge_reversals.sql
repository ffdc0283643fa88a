-- late_charge_reversal: a late charge taken back with the bill it was charged on
-- (docs/late-charges.md, "When the bill is cancelled"). A credit note that cancels a bill
-- reverses the bill's late charge in the same transaction: a ledger entry (kind
-- 'adjustment', minus the charge, reverses_entry_id the charge's entry, tied to the
-- cancelled bill) and this row. The credit note is the bill's (credit_note.bill_id is
-- unique: a bill is cancelled once), so it is found by the bill, and the reversal can be
-- written before the credit-note row, which waits for its rebill's id. The rebill is a
-- new debt with its own due date and is charged by the daily job when it is late in its
-- turn, so one debt never carries two live late charges. late_charge itself stays as it
-- was made (never updated); the primary key makes a charge reversed once. Numbered 093,
-- well above main's 075, because other branches add migrations at the same time.
CREATE TABLE late_charge_reversal (
  late_charge_id bigint PRIMARY KEY REFERENCES late_charge(late_charge_id),
  app_code       integer NOT NULL REFERENCES app(app_code),
  entry_id       bigint NOT NULL UNIQUE REFERENCES ledger_entry(entry_id),
  created_at     timestamptz NOT NULL DEFAULT now(),
  created_by     text NOT NULL
);
COMMENT ON TABLE late_charge_reversal IS 'A late charge reversed by the credit note that cancelled its bill (credit_note.bill_id = late_charge.bill_id); entry_id is the reversing ledger entry.';
