-- Per-bill events of a posting (bill.posted) and of the daily late charges (late_charge.made)
-- are written one per bill, always (101), and a term has a million bills: such an event stores
-- the bill it is of (source_id) and no body; its body is rendered when it is read
-- (src/events/body.ts) from that bill's row, or the bill's late charge, whose figures do not
-- change once written. Building a million JSON bodies in the posting's statement took a third
-- of the posting (npm run bench -- webhooks); a body rendered on read is the same body.
-- Every other event keeps its body in data.
ALTER TABLE event
  ADD COLUMN source_id bigint,
  ALTER COLUMN data DROP NOT NULL,
  ADD CONSTRAINT event_body_check CHECK (data IS NOT NULL OR (source_id IS NOT NULL AND type IN ('bill.posted', 'late_charge.made')));
