-- A job that succeeded on a later attempt no longer shows the first attempt's error (issue 24): the projection
-- clears last_error on `succeeded` (definitions/305_apply_event.sql and the fast path in 330_project_events.sql;
-- the Swift fold in JobFold.swift agrees). The errors stay in the history (`ferry events JOB`). Rows projected
-- before this change are brought in line once, so `ferry projection verify` stays clean.
UPDATE ferry.jobs SET last_error = NULL WHERE state = 'succeeded' AND last_error IS NOT NULL;
