-- Accounts: provider credentials sealed at rest, per-account base URLs, account history, and jobs held while an
-- account needs re-authorization.

-- Secrets are sealed by Ferry (AES-GCM, key from FERRY_SECRET_KEY or FERRY_SECRET_KEY_FILE) before they reach
-- PostgreSQL: the database, its backups and pg_dump only ever see ciphertext. Each sealed value is bound to its
-- account and field, so a ciphertext copied into another row or column does not open.
ALTER TABLE ferry.accounts
    ADD COLUMN app_key                 text,
    ADD COLUMN app_secret_sealed       bytea,
    ADD COLUMN refresh_token_sealed    bytea,
    ADD COLUMN access_token_sealed     bytea,
    ADD COLUMN access_token_issued_at  timestamptz,
    ADD COLUMN access_token_expires_at timestamptz,
    -- Fingerprint of the key that sealed the values, so a wrong key is reported as such.
    ADD COLUMN key_id                  text,
    -- Base URLs; NULL means the provider's real hosts.
    ADD COLUMN api_url                 text,
    ADD COLUMN content_url             text,
    ADD COLUMN authorize_url           text,
    ADD COLUMN provider_account_id     text,
    ADD COLUMN status                  text NOT NULL DEFAULT 'active'
                                            CHECK (status IN ('active', 'needs_reauth', 'revoked')),
    ADD COLUMN status_reason           text,
    ADD COLUMN updated_at              timestamptz NOT NULL DEFAULT now();

-- Credentials change; keep room for HOT updates of the token columns.
ALTER TABLE ferry.accounts SET (fillfactor = 70);

-- What happened to an account, like ferry.events for jobs. Never holds a secret: a refresh records the new
-- expiry, not the token.
CREATE TABLE ferry.account_events (
    position     bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account      text        NOT NULL,
    type         text        NOT NULL CHECK (type IN (
                     'added', 'linked', 'token_refreshed', 'needs_reauth', 'revoked', 'removed', 'updated')),
    data         jsonb       NOT NULL DEFAULT '{}'::jsonb,
    recorded_at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX account_events_account_idx ON ferry.account_events (account, position);

COMMENT ON TABLE ferry.account_events IS 'Append-only account history (linked, token refreshed, needs re-auth, revoked). No secrets.';

CREATE FUNCTION ferry.forbid_account_event_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ferry.account_events is append-only: % is not allowed', TG_OP
        USING ERRCODE = 'FY010', HINT = 'Record a change by appending a new account event.';
END
$$;

CREATE TRIGGER account_events_append_only_rows
    BEFORE UPDATE OR DELETE ON ferry.account_events
    FOR EACH ROW EXECUTE FUNCTION ferry.forbid_account_event_change();

CREATE TRIGGER account_events_append_only_truncate
    BEFORE TRUNCATE ON ferry.account_events
    FOR EACH STATEMENT EXECUTE FUNCTION ferry.forbid_account_event_change();

-- Workers refresh access tokens (under a row lock, one refresher per account across the fleet) and mark an
-- account that needs re-authorization; they change nothing else.
GRANT UPDATE (access_token_sealed, access_token_issued_at, access_token_expires_at, key_id, status, status_reason, updated_at)
    ON ferry.accounts TO ferry_worker;
GRANT SELECT, INSERT ON ferry.account_events TO ferry_worker;
GRANT SELECT ON ferry.account_events TO ferry_producer;
REVOKE UPDATE, DELETE, TRUNCATE ON ferry.account_events FROM PUBLIC, ferry_reader, ferry_producer, ferry_worker;

-- Claims skip jobs of accounts that cannot be used (needs re-authorization, revoked): those jobs are held, not
-- failed, and burn no attempts; `ferry account login` releases them. Otherwise as in 0005.
CREATE OR REPLACE FUNCTION ferry.claim_jobs(p_worker text, p_queues text[], p_limit integer)
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
                     HAVING count(*) >= a.max_concurrent
                     UNION ALL
                     SELECT h.name FROM ferry.accounts h WHERE h.status <> 'active'))
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

-- The status view says why a job waits when its account cannot be used ('held', with held_reason).
CREATE OR REPLACE VIEW ferry.job_status AS
SELECT j.job_id,
       j.kind,
       j.queue,
       j.batch,
       CASE
           WHEN j.state = 'queued' AND a.status IS NOT NULL AND a.status <> 'active' THEN 'held'
           WHEN j.state = 'queued' AND j.run_at > now() AND j.attempt > 0 THEN 'retrying'
           WHEN j.state = 'queued' AND j.run_at > now() THEN 'scheduled'
           WHEN j.state = 'running' AND j.cancel_requested THEN 'cancelling'
           ELSE j.state
       END AS status,
       j.state,
       j.attempt,
       j.max_attempts,
       j.priority,
       j.source,
       j.destination,
       j.account,
       j.bytes_done,
       j.bytes_total,
       CASE
           WHEN j.state = 'succeeded' THEN 100.0
           WHEN j.bytes_total > 0 THEN round(100.0 * least(j.bytes_done, j.bytes_total) / j.bytes_total, 1)
           WHEN j.bytes_total = 0 THEN 0.0
       END::numeric(4, 1) AS percent,
       j.last_error,
       j.worker,
       j.metadata,
       j.run_at,
       j.enqueued_at,
       j.started_at,
       j.finished_at,
       j.updated_at,
       j.version AS event_count,
       CASE
           WHEN j.state = 'queued' AND a.status = 'needs_reauth' THEN
               'account ' || a.name || ' needs re-authorization (' || coalesce(a.status_reason, 'token rejected')
               || '): run ferry account login ' || a.name
           WHEN j.state = 'queued' AND a.status = 'revoked' THEN
               'account ' || a.name || ' was signed out (token revoked): run ferry account login ' || a.name
       END AS held_reason
  FROM ferry.jobs j
  LEFT JOIN ferry.accounts a ON a.name = j.account;
