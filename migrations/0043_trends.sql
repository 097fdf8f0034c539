-- Trends: jobs finished, failures and bytes per minute and per hour, by queue, account and provider.
--
-- The dashboard's trends page reads ranges of an hour, a day and a week, filtered by queue, account or provider.
-- ferry.throughput_counts keeps a day per queue only. These rollups are filled from ferry.jobs after the fact by
-- ferry.roll_up_trends() (workers call it with their counter fold, through jobs_finished_idx): nothing is added to
-- the claim, progress or outcome statements. ferry.trends() adds the minutes not yet rolled up from the jobs
-- themselves, so a reading is current. A job that finished, was retried and finished again before its first
-- minute was rolled up counts once; after that each finish counts (work done per minute).

CREATE TABLE ferry.trend_minutes (
    bucket    timestamptz NOT NULL,
    queue     text        NOT NULL,
    account   text        NOT NULL,   -- '' for jobs without an account
    provider  text        NOT NULL,   -- the remote side's scheme (ferry.job_schemes), '' when none
    succeeded bigint      NOT NULL,
    failed    bigint      NOT NULL,
    bytes     bigint      NOT NULL,   -- of the jobs that succeeded
    PRIMARY KEY (bucket, queue, account, provider)
);

CREATE TABLE ferry.trend_hours (LIKE ferry.trend_minutes INCLUDING ALL);

-- One row: the jobs that finished before rolled_to are in the rollups.
CREATE TABLE ferry.trend_rollup (
    only_row  boolean     PRIMARY KEY DEFAULT true CHECK (only_row),
    rolled_to timestamptz NOT NULL
);

COMMENT ON TABLE ferry.trend_minutes IS 'Jobs finished per minute, queue, account and provider before ferry.trend_rollup.rolled_to (kept 25 hours).';
COMMENT ON TABLE ferry.trend_hours IS 'Jobs finished per hour, queue, account and provider before ferry.trend_rollup.rolled_to (kept 8 days).';

-- The first ferry.roll_up_trends() rolls up the week before (the function that names a job's provider is a
-- definition, applied after this file).
INSERT INTO ferry.trend_rollup (rolled_to) VALUES (date_trunc('hour', now()) - interval '8 days');

REVOKE ALL ON ferry.trend_minutes, ferry.trend_hours, ferry.trend_rollup FROM PUBLIC;
