-- Settlement methods beside Chronology (docs/payments.md#settlement): every allocation
-- records the settlement method in force for its account when it was made.
--
-- allocation.settlement_method: the template's paymentSettlementMethod that governed the
-- settlement this allocation belongs to ('Chronology', 'Category Priority',
-- 'Proportional'): the method of the template of the account's oldest open bill, or
-- Chronology when no open bill names one. allocation.method keeps saying which rule
-- placed the allocation: that same method, or 'Bill' (a credit note paying the bill it is
-- tied to) or 'Reversal' (an entry and its reversal paired), which run before any method.
-- Rows made before this migration were all made under Chronology, the only method then:
-- the ADD COLUMN default fills them without rewriting the table, and is then dropped so
-- that every new row must say its method.
ALTER TABLE allocation ADD COLUMN settlement_method text NOT NULL DEFAULT 'Chronology';
ALTER TABLE allocation ALTER COLUMN settlement_method DROP DEFAULT;
