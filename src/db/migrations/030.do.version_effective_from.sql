-- Effective-dated template versions (issue 12, part 1; docs/templates.md "Effective dates").
-- effective_from: the first day the version's prices are in force. NULL: from the
--   beginning (every version made before this migration, and the first version).
--   A version saved without an effectiveFrom takes the effective_from of the version in
--   force on the day it is saved (it corrects that version over the same dates).
-- effective_dated: true when update-service gave the effectiveFrom. A dated version
--   reaches every term of the template not yet billed; an undated one only terms made
--   after it is saved (a term keeps the version it was made with, as before).
ALTER TABLE service_version ADD COLUMN effective_from date;
ALTER TABLE service_version ADD COLUMN effective_dated boolean NOT NULL DEFAULT false;
