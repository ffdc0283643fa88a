-- A Prepaid template's bills (docs/templates.md, "Prepaid"): a bill of a Prepaid term
-- records in bill.source.prepaid what it billed in advance for the coming period
-- ("advance"), the earlier advances it was rated with ("advances") and the days of them
-- it settled ("settles"). The next term's run reads a subscription's live bills that
-- have such a record: this index finds them by subscription, and holds only Prepaid bills.
CREATE INDEX bill_prepaid_idx ON bill (subscription_id, bill_id) WHERE (source -> 'prepaid') IS NOT NULL;

COMMENT ON INDEX bill_prepaid_idx IS
  'Bills of Prepaid terms by subscription: the bill run reads their source.prepaid (advance billed, advances settled) to credit unused prepaid days once and never bill a prepaid day twice.';
