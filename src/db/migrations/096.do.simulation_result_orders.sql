-- simulation_result (migration 024): one row per roster subscription of a simulation.
-- Pages of results are read in one of four orders (src/simulation/store.ts, ORDER); each
-- is now an index's own order, so a page is read off the index rather than a sort of every
-- result of the simulation (3 s for a page of a million results). The rise first
-- (difference DESC NULLS LAST, then subscription_id ascending) had no index; the size
-- index sorted its nulls first, the order of neither answer.
CREATE INDEX simulation_result_rise_idx ON simulation_result (simulation_id, difference DESC NULLS LAST, subscription_id);
DROP INDEX simulation_result_size_idx;
CREATE INDEX simulation_result_size_idx ON simulation_result (simulation_id, abs(difference) DESC NULLS LAST, subscription_id);
