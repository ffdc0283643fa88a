-- The template version a security deposit was charged under, so its three ledger entries
-- (charge, release, refund) sit in the journal in that template's cash account and
-- business unit (docs/journal.md), as a bill's sit in its term's version's. The version,
-- not the template: a later version may move the template to another cash account, and
-- the journal of a past day must not change with it. A move carries the deposit to
-- another template, never its version: what was received in one cash account is given
-- back from it.
ALTER TABLE deposit ADD COLUMN service_version_id bigint REFERENCES service_version(service_version_id);

-- Deposits charged before this column: the version of the charged subscription's template
-- in force when the deposit row was written (the latest made by then), as the charge
-- read it (its current version then).
UPDATE deposit d
   SET service_version_id = (
     SELECT v.service_version_id
       FROM subscription s JOIN service_version v ON v.service_id = s.service_id
      WHERE s.subscription_id = d.charged_subscription_id
      ORDER BY (v.created_at <= d.created_at) DESC, CASE WHEN v.created_at <= d.created_at THEN v.version END DESC NULLS LAST, v.version
      LIMIT 1);

ALTER TABLE deposit ALTER COLUMN service_version_id SET NOT NULL;
COMMENT ON COLUMN deposit.service_version_id IS
  'The template version the deposit was charged under (its amount''s): its cashAccountID and businessUnitID place the deposit''s charge, release and refund entries in the journal (src/journal/journal.ts).';
