-- An app may choose every rounding rule the rating core has. 001 listed five and refused
-- ceil and floor, which the core rounds with; the list must stay equal to ROUNDING_MODES
-- in src/rating/money.ts (test/terms/rounding.test.ts fails when they differ).
ALTER TABLE app DROP CONSTRAINT app_rounding_mode_check;
ALTER TABLE app ADD CONSTRAINT app_rounding_mode_check
  CHECK (rounding_mode IN ('halfUp', 'halfEven', 'halfDown', 'up', 'down', 'ceil', 'floor'));
