-- Simulation results without their traces (issue 13, speed): both bills' lines with their
-- traces made 2 KB a row (421 MB per 200,000 subscriptions) and writing them was most of a
-- simulation's time. A result now keeps what its two bills were rated from, and its lines
-- are rated again from it when read (docs/simulation.md, "How results are kept").

ALTER TABLE simulation ADD COLUMN rating_context jsonb;
COMMENT ON COLUMN simulation.rating_context IS
  'The bill run''s rating context of the term when the simulation was planned (its tariff, the versions in force, dates, minor units, rounding): with draft, what a result''s inputs are rated by again to show its lines. Null for a simulation planned before migration 063 (its results keep their lines).';

ALTER TABLE simulation_result ADD COLUMN inputs json;
COMMENT ON COLUMN simulation_result.inputs IS
  'What both bills were rated from (the roster input: dates, unmetered quantities, suspensions, balance, readings), so the lines and traces are rated again exactly when read, by simulation.rating_context and simulation.draft. json, not jsonb: it is written a million times and only read whole. Null where current_lines and draft_lines are kept (results written before migration 063).';
COMMENT ON COLUMN simulation_result.current_lines IS
  'The current bill''s lines with their traces, kept only by simulations planned before migration 063; later ones rate them again from inputs when read.';
COMMENT ON COLUMN simulation_result.draft_lines IS
  'The draft bill''s lines with their traces, kept only by simulations planned before migration 063; later ones rate them again from inputs when read.';
