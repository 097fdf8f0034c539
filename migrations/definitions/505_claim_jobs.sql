-- Claims up to p_limit due jobs of p_queues for p_worker in one statement: paused queues skipped, highest priority
-- first, then oldest run_at, SKIP LOCKED, at most max_concurrent transfers per account (ferry.account_transfers),
-- and a 'claimed' event per job. Reads about as many index entries as it returns, however deep the backlog.
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
                    ELSE least(p_limit, coalesce(a.max_concurrent, 4) - ferry.account_transfers(g.acct))
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
        running := ferry.account_transfers(acct.name);
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
