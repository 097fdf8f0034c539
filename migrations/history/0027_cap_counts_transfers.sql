-- The account cap counts transfers, not jobs waiting for their commit (issue 21).
--
-- A Dropbox upload whose data is up waits for its account's next upload_session/finish_batch_v2; an S3 multipart
-- upload whose parts are up waits for CompleteMultipartUpload. Counted against the account's max_concurrent, those
-- jobs made the cap limit the size of a commit batch (4 files per commit at the default) instead of the number of
-- concurrent transfers. A running job whose last progress event says every byte is up (bytes_done = bytes_total,
-- bytes_total > 0) no longer counts: its worker records that event before the commit, and a worker that finds it
-- so on a new attempt only commits. Empty files, and jobs whose size is unknown, count while they run.
--
-- What counts is one function, so the next change to it is one small migration, not a copy of claim_jobs.
-- The index jobs_running_account_idx (account) WHERE state = 'running' finds the account's running jobs; the
-- byte columns are read from the heap (a few rows per account), so progress updates stay HOT.

CREATE FUNCTION ferry.account_transfers(p_account text) RETURNS bigint
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT count(*) FROM ferry.jobs r
     WHERE r.state = 'running' AND r.account = p_account
       AND NOT coalesce(r.bytes_total > 0 AND r.bytes_done >= r.bytes_total, false)   -- size unknown: counts
$$;
COMMENT ON FUNCTION ferry.account_transfers(text) IS
    'Running jobs of an account that still move bytes (not those waiting only for a commit): what max_concurrent caps.';
-- claim_jobs calls it with the worker's rights.
REVOKE EXECUTE ON FUNCTION ferry.account_transfers(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ferry.account_transfers(text) TO ferry_worker;

-- claim_jobs as in 0018, counting with account_transfers.
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
