-- Replay: ferry.replay(e ORDER BY version) folds a job's events into the row the projection should hold.
CREATE OR REPLACE AGGREGATE ferry.replay(ferry.events) (SFUNC = ferry.replay_step, STYPE = ferry.jobs);
