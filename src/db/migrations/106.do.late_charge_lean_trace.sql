-- late_charge.trace keeps only what the row's own columns and its bill do not hold: the
-- rule as it was applied (a version without a rule of its own takes the app's default,
-- which may change later) and the computation's figures before rounding. The bill's
-- number and due date, the day, the version, the overdue amount and the amount are read
-- from their columns and put back in the trace when it is read (src/lateCharges/trace.ts).
-- The job writes up to a million rows a run, and the whole trace was 60% of the insert
-- (docs/late-charges.md). Rows written before are made lean the same way.
UPDATE late_charge
   SET trace = json_strip_nulls(json_build_object(
         'rule', trace->'rule',
         'base', trace->'computation'->>'base',
         'limit', trace->'computation'->>'limit',
         'unrounded', trace->'computation'->>'unrounded',
         'rounding', trace->'computation'->>'rounding'))
 WHERE (trace::jsonb) ? 'computation';

COMMENT ON COLUMN late_charge.trace IS
  'How the amount was reached, less what the row''s columns and its bill hold: {rule, base, limit?, unrounded, rounding} (src/lateCharges/trace.ts renders the whole trace on read).';
