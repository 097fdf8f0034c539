-- Workers: liveness, claims with per-account limits, and rescue of jobs held by dead workers.

-- Worker liveness is operational state, not history: one row per live worker, one UPDATE per heartbeat
-- (never per job), so heartbeats never swamp the event log.
CREATE TABLE ferry.workers (
    name          text        PRIMARY KEY,
    queues        text[]      NOT NULL,
    concurrency   integer     NOT NULL,
    host          text        NOT NULL,
    pid           integer     NOT NULL,
    started_at    timestamptz NOT NULL DEFAULT now(),
    heartbeat_at  timestamptz NOT NULL DEFAULT now(),
    stopping      boolean     NOT NULL DEFAULT false
) WITH (fillfactor = 50);

GRANT SELECT ON ferry.workers TO ferry_reader, ferry_producer;
GRANT SELECT, INSERT, UPDATE, DELETE ON ferry.workers TO ferry_worker;

-- At most this many jobs of one account run at once, across every worker (cloud providers punish parallel
-- commits to one account).
ALTER TABLE ferry.accounts ADD COLUMN max_concurrent integer NOT NULL DEFAULT 4 CHECK (max_concurrent BETWEEN 1 AND 1000);

-- Claims up to p_limit due jobs from p_queues for p_worker: highest priority first, then oldest run_at.
-- Candidates are locked with FOR UPDATE SKIP LOCKED (claimers never wait on each other); accounts at their
-- limit are skipped up front; then each account among the candidates is serialized with a transaction-scoped
-- advisory lock, its running jobs recounted, and the excess dropped, so the limit holds across all workers.
-- A 'claimed' event (next lease, worker name) is appended per job; the rows come back as claimed.
CREATE FUNCTION ferry.claim_jobs(p_worker text, p_queues text[], p_limit integer)
RETURNS SETOF ferry.jobs
LANGUAGE plpgsql AS $$
DECLARE
    picked  uuid[];
    acct    record;
    running bigint;
BEGIN
    SELECT array_agg(c.job_id ORDER BY c.priority DESC, c.run_at, c.job_id) INTO picked
      FROM (SELECT j.job_id, j.priority, j.run_at
              FROM ferry.jobs j
             WHERE j.state = 'queued' AND j.queue = ANY (p_queues) AND j.run_at <= now()
               AND (j.account IS NULL OR j.account NOT IN (
                     SELECT r.account
                       FROM ferry.jobs r JOIN ferry.accounts a ON a.name = r.account
                      WHERE r.state = 'running'
                      GROUP BY r.account, a.max_concurrent
                     HAVING count(*) >= a.max_concurrent))
             ORDER BY j.priority DESC, j.run_at, j.job_id
             LIMIT p_limit
               FOR UPDATE OF j SKIP LOCKED) c;
    IF picked IS NULL THEN
        RETURN;
    END IF;

    FOR acct IN
        SELECT j.account AS name, coalesce(a.max_concurrent, 4) AS cap
          FROM ferry.jobs j LEFT JOIN ferry.accounts a ON a.name = j.account
         WHERE j.job_id = ANY (picked) AND j.account IS NOT NULL
         GROUP BY j.account, a.max_concurrent
         ORDER BY j.account            -- one lock order for everyone: no deadlocks
    LOOP
        PERFORM pg_advisory_xact_lock(hashtext('ferry.account'), hashtext(acct.name));
        -- A fresh snapshot after the lock sees every claim committed by whoever held it before us.
        SELECT count(*) INTO running FROM ferry.jobs WHERE state = 'running' AND ferry.jobs.account = acct.name;
        picked := ARRAY(
            SELECT p.id
              FROM unnest(picked) WITH ORDINALITY AS p(id, position)
              JOIN ferry.jobs j ON j.job_id = p.id
             WHERE j.account IS DISTINCT FROM acct.name
                OR p.id IN (SELECT q.id
                              FROM unnest(picked) WITH ORDINALITY AS q(id, position)
                              JOIN ferry.jobs k ON k.job_id = q.id AND k.account = acct.name
                             ORDER BY q.position
                             LIMIT greatest(0, acct.cap - running))
             ORDER BY p.position);
    END LOOP;
    IF cardinality(picked) = 0 THEN
        RETURN;
    END IF;

    INSERT INTO ferry.events (job_id, version, type, data)
    SELECT j.job_id, j.version + 1, 'claimed', jsonb_build_object('lease', j.lease + 1, 'worker', p_worker)
      FROM ferry.jobs j
     WHERE j.job_id = ANY (picked);

    RETURN QUERY
    SELECT j.* FROM ferry.jobs j WHERE j.job_id = ANY (picked) ORDER BY j.priority DESC, j.run_at, j.job_id;
END
$$;

-- Puts back jobs whose worker stopped heartbeating (or vanished): a 'rescued' event, or 'failed' when the
-- attempts are used up. Whoever runs it first wins; SKIP LOCKED and the stream version make it exactly once.
-- The event carries the dead claim's lease, so it cannot touch a job that was claimed again meanwhile.
CREATE FUNCTION ferry.rescue_stale_jobs(p_stale_after interval)
RETURNS TABLE (job_id uuid, outcome text, worker text)
LANGUAGE plpgsql AS $$
BEGIN
    RETURN QUERY
    WITH stale AS (
        SELECT j.job_id, j.version, j.lease, j.attempt, j.max_attempts, j.worker
          FROM ferry.jobs j
          LEFT JOIN ferry.workers w ON w.name = j.worker
         WHERE j.state = 'running'
           AND (w.name IS NULL OR w.heartbeat_at < now() - p_stale_after)
           FOR UPDATE OF j SKIP LOCKED
    ), appended AS (
        INSERT INTO ferry.events (job_id, version, type, data)
        SELECT s.job_id, s.version + 1,
               CASE WHEN s.attempt >= s.max_attempts THEN 'failed' ELSE 'rescued' END,
               jsonb_build_object(
                   'lease', s.lease,
                   CASE WHEN s.attempt >= s.max_attempts THEN 'error' ELSE 'reason' END,
                   'worker ' || coalesce(s.worker, '?') || ' stopped heartbeating (lease expired)'
                       || CASE WHEN s.attempt >= s.max_attempts
                               THEN format('; attempts exhausted (%s of %s)', s.attempt, s.max_attempts) ELSE '' END)
          FROM stale s
        RETURNING ferry.events.job_id, ferry.events.type
    )
    SELECT a.job_id, a.type, s.worker FROM appended a JOIN stale s ON s.job_id = a.job_id;

    -- Forget workers that are long gone and hold nothing.
    DELETE FROM ferry.workers w
     WHERE w.heartbeat_at < now() - p_stale_after * 10
       AND NOT EXISTS (SELECT 1 FROM ferry.jobs j WHERE j.state = 'running' AND j.worker = w.name);
END
$$;

-- Claims a worker holds without knowing it: the claim committed but its reply was lost with the connection.
-- The worker heartbeats, so rescue would never see them; instead each heartbeat releases what the database
-- attributes to the worker but the worker is not running (older than a grace period, to skip claims still
-- in flight). 'released' does not consume an attempt: the job never started.
CREATE FUNCTION ferry.release_orphaned_claims(p_worker text, p_running uuid[], p_grace interval)
RETURNS TABLE (job_id uuid)
LANGUAGE sql AS $$
    WITH orphaned AS (
        SELECT j.job_id, j.version, j.lease
          FROM ferry.jobs j
         WHERE j.state = 'running' AND j.worker = p_worker AND j.updated_at < now() - p_grace
           AND NOT (j.job_id = ANY (p_running))
           FOR UPDATE OF j SKIP LOCKED
    )
    INSERT INTO ferry.events (job_id, version, type, data)
    SELECT o.job_id, o.version + 1, 'released',
           jsonb_build_object('lease', o.lease, 'reason', 'claim reply lost with the connection; released unstarted')
      FROM orphaned o
    RETURNING ferry.events.job_id
$$;
