-- A job's history as the dashboard and `ferry events` show it. Events never carry secrets (tokens live sealed
-- in ferry.accounts). A simple view: `WHERE job_id = …` and `max(position)` use the event log's indexes.
CREATE OR REPLACE VIEW ferry.job_timeline AS
SELECT e.position, e.job_id, e.version, e.type, e.data, e.tx_id, e.recorded_at,
       e.data->>'worker' AS worker,
       (e.data->>'lease')::bigint AS lease
  FROM ferry.events e;
