-- Registered workers, their heartbeat age, how many jobs each runs and the release each runs (NULL before 0036).
CREATE OR REPLACE VIEW ferry.worker_status AS
SELECT w.name, w.host, w.pid, w.queues, w.concurrency,
       extract(epoch FROM now() - w.heartbeat_at)::float8 AS heartbeat_age_seconds,
       w.stopping,
       (SELECT count(*) FROM ferry.jobs j WHERE j.state = 'running' AND j.worker = w.name) AS running,
       w.started_at,
       w.version
  FROM ferry.workers w;
