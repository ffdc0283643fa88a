-- subscription_document: the documents recorded on a subscription (a national ID, a title
-- deed, a signed contract), by name as the pricing template's requiredDocs lists them.
-- A subscription is connected (made, moved, imported) only when every document its
-- template requires at that moment is recorded; recording one again replaces its
-- reference and date (the subscription's history, subscription_event
-- 'documents_recorded', keeps what was there before). Extra documents, not required
-- by the template, are kept as well.
CREATE TABLE subscription_document (
  subscription_id bigint NOT NULL REFERENCES subscription(subscription_id),
  app_code        integer NOT NULL REFERENCES app(app_code),
  name            text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  reference       text NOT NULL CHECK (length(reference) BETWEEN 1 AND 200),
  document_date   date NOT NULL,
  recorded_at     timestamptz NOT NULL DEFAULT now(),
  recorded_by     text NOT NULL,
  PRIMARY KEY (subscription_id, name)
);

ALTER TABLE subscription_event DROP CONSTRAINT subscription_event_kind_check;
ALTER TABLE subscription_event ADD CONSTRAINT subscription_event_kind_check
  CHECK (kind IN ('suspended', 'resumed', 'terminated', 'moved_out', 'moved_in', 'inputs_changed', 'documents_recorded'));
