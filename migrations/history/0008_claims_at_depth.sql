-- Claims whose cost does not grow with the backlog.
--
-- The claim reads one ordered index range per (queue, account, priority level) group and merges the winners,
-- so it touches about as many index entries as it returns, whatever the number of queued, scheduled, held or
-- finished jobs. jobs_claim_idx puts the account before the order columns: jobs of an account at its cap (or
-- held for re-authorization) are never read, only skipped over with one index probe.

DROP INDEX ferry.jobs_claimable_idx;
-- '' stands for "no account" (account names are never empty), so one expression covers both kinds of jobs.
CREATE INDEX jobs_claim_idx ON ferry.jobs (queue, (coalesce(account, '')), priority DESC, run_at, job_id)
    WHERE state = 'queued';

-- Jobs without an account need no entry here: the index only serves per-account caps.
DROP INDEX ferry.jobs_running_account_idx;
CREATE INDEX jobs_running_account_idx ON ferry.jobs (account) WHERE state = 'running' AND account IS NOT NULL;

-- Claims up to p_limit due jobs from p_queues for p_worker: highest priority first, then oldest run_at, then
-- job id. Guarantees as before (0006): due jobs only, FOR UPDATE SKIP LOCKED, at most max_concurrent running
-- jobs per account across all workers, jobs of held accounts skipped, a 'claimed' event with the next lease.
--
-- How candidates are found without reading the backlog:
--   1. groups: the distinct (queue, account) pairs with queued jobs, by a loose index scan (one probe each);
--   2. room: how many jobs each group may start (accounts: cap minus running, nothing when held);
--   3. per group, its priority levels one probe at a time (highest first), and within a level the due jobs in
--      run_at order, LIMIT room, locked with SKIP LOCKED: a level whose jobs are all scheduled later costs one
--      probe, not a walk over them;
--   4. the winners are merged by claim order and cut to p_limit (and to each account's room across queues).
-- Rows come back in no particular order; callers sort by (priority DESC, run_at, job_id) when they care.
-- plan_cache_mode: the candidate statement is costly to plan (about half of a claim of 10), and its plan does
-- not depend on the arguments (every access is an index probe or range), so it is planned once per session.
-- enable_seqscan: a plan made while the queue was nearly empty (or before ANALYZE saw it grow) must not scan
-- the queue once it holds a million jobs; every statement here has an index path.
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
    queues AS (
        SELECT DISTINCT name FROM unnest(p_queues) AS name WHERE name IS NOT NULL
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
