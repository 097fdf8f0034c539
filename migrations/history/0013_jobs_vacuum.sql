-- Vacuum of the projection keeps pace with the workers.
--
-- Every job is updated two or three times (claim, progress, finish); at several thousand jobs a second that is
-- tens of thousands of dead row versions a second. Measured (ferry-bench soak, 1,000,000 no-op jobs, 2 workers,
-- about 7,000 jobs/s): with the server's default autovacuum_naptime of 60 s dead versions reached 120% of live
-- rows; with 10 s, 31%. The naptime is the server's setting (see README "Bloat under churn"); what the table can
-- do is never throttle its own vacuum, so each pass ends before the next batch of dead versions piles up.
ALTER TABLE ferry.jobs SET (autovacuum_vacuum_cost_delay = 0, autovacuum_vacuum_scale_factor = 0.01);
