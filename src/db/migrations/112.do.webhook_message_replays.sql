-- A replay asked while the same message is on its way was absorbed: the sender had read the
-- message before the replay set it pending again, and on recording its answer set it
-- delivered, so the endpoint never received the replay (an attempt that began before the
-- replay was asked is no answer to it). Each replay now counts itself on the message, and
-- the sender records an answer against the message only when the count is still the one
-- it read: otherwise the attempt is logged and the message stays owed.
ALTER TABLE webhook_message ADD COLUMN replays integer NOT NULL DEFAULT 0;
COMMENT ON COLUMN webhook_message.replays IS 'times the message was replayed; an attempt read before the last replay does not settle it';
