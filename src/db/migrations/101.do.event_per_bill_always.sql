-- Per-bill events (bill.posted, credit_note.made, late_charge.made) are written always,
-- not only while an endpoint subscribes as 016 said: product.md makes every bill posted an
-- event, logged and replayable, and an endpoint added later replays them. So the table's
-- meaning, as 016 made it, is now as follows.
COMMENT ON TABLE event IS
  'One change a client may care about (src/events/types.ts), written in the same transaction as the change: no event without its change, no change without its event. order_key groups what an endpoint receives in order (term:12, bill:40); data is the body as the endpoint receives it. A posting writes one bill.posted row per bill (docs/webhooks.md).';
