-- Queue pause and resume: `ferry queue pause NAME` stops claims from a queue (running jobs finish), `resume`
-- lets them go again. The state is an event in ferry.queue_events (who, when, why), projected into
-- ferry.queue_controls by a trigger in the same statement; claim_jobs skips paused queues.

CREATE TABLE ferry.queue_events (
    position    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    queue       text        NOT NULL CHECK (queue ~ '^[a-z0-9][a-z0-9_.-]{0,62}$'),
    type        text        NOT NULL CHECK (type IN ('paused', 'resumed')),
    data        jsonb       NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(data) = 'object'),
    recorded_at timestamptz NOT NULL DEFAULT now(),
    recorded_by text        NOT NULL DEFAULT current_user
);
COMMENT ON TABLE ferry.queue_events IS 'Append-only history of queue pauses and resumes (ferry queue pause|resume).';

CREATE TABLE ferry.queue_controls (
    queue      text        PRIMARY KEY,
    paused     boolean     NOT NULL,
    changed_at timestamptz NOT NULL,
    reason     text
);
COMMENT ON TABLE ferry.queue_controls IS 'Projection of ferry.queue_events: whether each queue is paused, since when and why.';

CREATE FUNCTION ferry.project_queue_events() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    INSERT INTO ferry.queue_controls AS c (queue, paused, changed_at, reason)
    SELECT DISTINCT ON (n.queue) n.queue, n.type = 'paused', n.recorded_at, n.data->>'reason'
      FROM new_events n
     ORDER BY n.queue, n.position DESC
    ON CONFLICT (queue) DO UPDATE
       SET paused = excluded.paused, changed_at = excluded.changed_at, reason = excluded.reason;
    RETURN NULL;
END
$$;

CREATE TRIGGER queue_events_project AFTER INSERT ON ferry.queue_events
    REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION ferry.project_queue_events();

-- The history is never rewritten.
CREATE FUNCTION ferry.queue_events_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ferry.queue_events is append-only' USING ERRCODE = 'insufficient_privilege',
        HINT = 'pause or resume with ferry queue pause|resume NAME';
END
$$;
CREATE TRIGGER queue_events_no_change BEFORE UPDATE OR DELETE OR TRUNCATE ON ferry.queue_events
    FOR EACH STATEMENT EXECUTE FUNCTION ferry.queue_events_append_only();

-- Pausing is an operator's and a producer's action, like cancel and retry. Producers name the queue, the type and
-- the data; who and when are the database's (as for ferry.events). Readers see the state in queue_stats.paused.
GRANT SELECT ON ferry.queue_events TO ferry_producer, ferry_worker;
GRANT INSERT (queue, type, data) ON ferry.queue_events TO ferry_producer;
GRANT SELECT ON ferry.queue_controls TO ferry_producer, ferry_worker;

-- claim_jobs as in 0008, skipping paused queues.
CREATE OR REPLACE FUNCTION ferry.claim_jobs(p_worker text, p_queues text[], p_limit integer)
RETURNS SETOF ferry.jobs
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan SET enable_seqscan = off AS $$
DECLARE
    picked   uuid[];
    owners   text[];
    acct     record;
    running  bigint;
BEGIN
    WITH RECURSIVE
    -- Paused queues are skipped (a primary-key probe of the small queue_controls table per queue).
    queues AS (
        SELECT DISTINCT name FROM unnest(p_queues) AS name
         WHERE name IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM ferry.queue_controls c WHERE c.queue = name AND c.paused)
    ),
    -- Each probe returns the first queued row it can see, whose key (run_at, job_id) is where its level's scan
    -- starts: entries before it (claimed jobs whose dead index entries wait for vacuum) are stepped over once
    -- per level, not once per probe and once more per scan. The same snapshot, so nothing visible is skipped.
    groups(queue, acct, p, r, id) AS (
        SELECT q.name, f.acct, f.priority, f.run_at, f.job_id
          FROM queues q
         CROSS JOIN LATERAL (SELECT coalesce(j.account, '') AS acct, j.priority, j.run_at, j.job_id FROM ferry.jobs j
                              WHERE j.state = 'queued' AND j.queue = q.name
                              ORDER BY coalesce(j.account, ''), j.priority DESC, j.run_at, j.job_id LIMIT 1) f
        UNION ALL
        SELECT g.queue, f.acct, f.priority, f.run_at, f.job_id
          FROM groups g
         CROSS JOIN LATERAL (SELECT coalesce(j.account, '') AS acct, j.priority, j.run_at, j.job_id FROM ferry.jobs j
                              WHERE j.state = 'queued' AND j.queue = g.queue AND coalesce(j.account, '') > g.acct
                              ORDER BY coalesce(j.account, ''), j.priority DESC, j.run_at, j.job_id LIMIT 1) f
    ),
    room AS MATERIALIZED (
        SELECT g.queue, g.acct, g.p, g.r, g.id,
               CASE WHEN g.acct = '' THEN p_limit
                    ELSE least(p_limit, coalesce(a.max_concurrent, 4)
                                        - (SELECT count(*) FROM ferry.jobs r
                                            WHERE r.state = 'running' AND r.account = g.acct))
               END AS n
          FROM groups g
          LEFT JOIN ferry.accounts a ON a.name = g.acct
         WHERE g.acct = '' OR a.status IS NULL OR a.status = 'active'
    ),
    candidates AS (
        SELECT c.job_id, c.priority, c.run_at, c.account, r.n
          FROM room r
         CROSS JOIN LATERAL (
               WITH RECURSIVE levels(p, r, id) AS (
                   SELECT r.p, r.r, r.id
                   UNION ALL
                   SELECT f.priority, f.run_at, f.job_id
                     FROM levels l
                    CROSS JOIN LATERAL (SELECT j.priority, j.run_at, j.job_id FROM ferry.jobs j
                                         WHERE j.state = 'queued' AND j.queue = r.queue AND coalesce(j.account, '') = r.acct
                                           AND j.priority < l.p
                                         ORDER BY j.priority DESC, j.run_at, j.job_id LIMIT 1) f
               )
               SELECT s.* FROM levels l
                CROSS JOIN LATERAL (
                      SELECT j.job_id, j.priority, j.run_at, j.account FROM ferry.jobs j
                       WHERE j.state = 'queued' AND j.queue = r.queue AND coalesce(j.account, '') = r.acct
                         AND j.priority = l.p AND (j.run_at, j.job_id) >= (l.r, l.id) AND j.run_at <= now()
                       ORDER BY j.run_at, j.job_id
                       LIMIT r.n
                         FOR UPDATE OF j SKIP LOCKED) s
                LIMIT r.n) c
         WHERE r.n > 0
    ),
    ranked AS (
        -- An account's jobs in several queues share its room.
        SELECT c.*, row_number() OVER (PARTITION BY c.account ORDER BY c.priority DESC, c.run_at, c.job_id) AS k
          FROM candidates c
    ),
    winners AS (
        SELECT w.job_id, w.account, w.priority, w.run_at FROM ranked w
         WHERE w.account IS NULL OR w.k <= w.n
         ORDER BY w.priority DESC, w.run_at, w.job_id
         LIMIT p_limit
    )
    -- In claim order: the per-account cut below keeps each account's best winners.
    SELECT array_agg(w.job_id ORDER BY w.priority DESC, w.run_at, w.job_id),
           array_agg(w.account ORDER BY w.priority DESC, w.run_at, w.job_id)
      INTO picked, owners
      FROM winners w;
    IF picked IS NULL THEN
        RETURN;
    END IF;

    -- The room above was read without locks; claims committed since by other workers are seen only now.
    FOR acct IN
        SELECT a.name, coalesce(x.max_concurrent, 4) AS cap
          FROM (SELECT DISTINCT o AS name FROM unnest(owners) AS o WHERE o IS NOT NULL) a
          LEFT JOIN ferry.accounts x ON x.name = a.name
         ORDER BY a.name           -- one lock order for everyone: no deadlocks
    LOOP
        PERFORM pg_advisory_xact_lock(hashtext('ferry.account'), hashtext(acct.name));
        -- A fresh snapshot after the lock sees every claim committed by whoever held it before us.
        SELECT count(*) INTO running FROM ferry.jobs r WHERE r.state = 'running' AND r.account = acct.name;
        -- Keep the account's first (cap - running) winners in claim order, and everything else.
        SELECT coalesce(array_agg(x.id ORDER BY x.pos), '{}'), coalesce(array_agg(x.owner ORDER BY x.pos), '{}')
          INTO picked, owners
          FROM (SELECT p.id, p.owner, p.pos,
                       count(*) FILTER (WHERE p.owner = acct.name) OVER (ORDER BY p.pos) AS nth
                  FROM unnest(picked, owners) WITH ORDINALITY AS p(id, owner, pos)) x
         WHERE x.owner IS DISTINCT FROM acct.name OR x.nth <= acct.cap - running;
    END LOOP;
    IF cardinality(picked) = 0 THEN
        RETURN;
    END IF;

    INSERT INTO ferry.events (job_id, version, type, data)
    SELECT j.job_id, j.version + 1, 'claimed', jsonb_build_object('lease', j.lease + 1, 'worker', p_worker)
      FROM ferry.jobs j
     WHERE j.job_id = ANY (picked);

    RETURN QUERY
    SELECT j.* FROM ferry.jobs j WHERE j.job_id = ANY (picked);
END
$$;


-- queue_stats says whether each queue is paused (a new last column; the rest as in 0012).
CREATE OR REPLACE VIEW ferry.queue_stats AS
WITH counted AS (
    SELECT t.queue, t.state, sum(t.jobs)::bigint AS jobs
      FROM (SELECT queue, state, jobs FROM ferry.queue_counts
            UNION ALL
            SELECT queue, state, delta FROM ferry.queue_count_deltas) t
     GROUP BY t.queue, t.state
    HAVING sum(t.jobs) <> 0
), waiting AS (
    -- The probes run once per queue with queued jobs (the filter applies before the call).
    SELECT c.queue, q.scheduled, q.oldest
      FROM counted c CROSS JOIN LATERAL ferry.queue_waiting(c.queue) q
     WHERE c.state = 'queued'
)
SELECT c.queue,
       c.state,
       c.jobs,
       CASE WHEN c.state = 'queued' THEN c.jobs - w.scheduled ELSE 0 END::bigint AS due,
       CASE WHEN w.oldest <= now() THEN now() - w.oldest END AS oldest_waiting_age,
       coalesce(extract(epoch FROM CASE WHEN w.oldest <= now() THEN now() - w.oldest END), 0)::double precision
           AS oldest_waiting_seconds,
       coalesce((SELECT qc.paused FROM ferry.queue_controls qc WHERE qc.queue = c.queue), false) AS paused
  FROM counted c
  LEFT JOIN waiting w ON w.queue = c.queue AND c.state = 'queued';

COMMENT ON VIEW ferry.queue_stats IS
    'Per queue and state: job counts (from counters), due jobs, the oldest due job''s wait (from index probes), and whether the queue is paused.';
