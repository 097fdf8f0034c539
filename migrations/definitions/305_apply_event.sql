-- The fold: one event applied to a job's row (NULL before 'enqueued'), or an exception with Ferry's SQLSTATE
-- (FY001 stale lease, FY002 transition not allowed, FY003 wrong version). JobFold is its Swift spelling.
CREATE OR REPLACE FUNCTION ferry.apply_event(j ferry.jobs, p_job_id uuid, p_type text, p_version integer, p_data jsonb, p_at timestamp with time zone) RETURNS ferry.jobs
    LANGUAGE plpgsql STABLE
    AS $$
DECLARE
    claim_is_current boolean;
BEGIN
    IF p_type = 'enqueued' THEN
        IF j.job_id IS NOT NULL THEN
            RAISE EXCEPTION 'job % already exists', p_job_id USING ERRCODE = 'FY002';
        END IF;
        IF p_version <> 1 THEN
            RAISE EXCEPTION 'job %: enqueued must be version 1, not %', p_job_id, p_version USING ERRCODE = 'FY003';
        END IF;
        SELECT * INTO j FROM ferry.job_from_enqueued(p_job_id, p_version, p_data, p_at);
        RETURN j;
    END IF;
    IF j.job_id IS NULL THEN
        RAISE EXCEPTION 'job % does not exist', p_job_id USING ERRCODE = 'FY004';
    END IF;
    IF p_version <> j.version + 1 THEN
        RAISE EXCEPTION 'job %: event version % does not follow version %', p_job_id, p_version, j.version
            USING ERRCODE = 'FY003';
    END IF;

    claim_is_current := j.state = 'running' AND (p_data->>'lease')::bigint IS NOT DISTINCT FROM j.lease;
    IF p_type IN ('progress', 'retry_scheduled', 'deferred', 'released', 'rescued', 'succeeded', 'failed', 'resolved')
       AND NOT claim_is_current THEN
        IF j.state <> 'running' THEN
            RAISE EXCEPTION 'job %: % is not allowed while the job is %', p_job_id, p_type, j.state
                USING ERRCODE = 'FY001', HINT = 'The claim ended (rescued, cancelled or finished elsewhere).';
        END IF;
        RAISE EXCEPTION 'job %: % carries lease %, but the current lease is %', p_job_id, p_type,
            coalesce(p_data->>'lease', 'none'), j.lease
            USING ERRCODE = 'FY001', HINT = 'The job was claimed again after this claim was lost.';
    END IF;

    j.version := p_version;
    j.updated_at := p_at;

    CASE p_type
    WHEN 'claimed' THEN
        IF j.state <> 'queued' THEN
            RAISE EXCEPTION 'job %: cannot be claimed while %', p_job_id, j.state USING ERRCODE = 'FY002';
        END IF;
        IF (p_data->>'lease')::bigint IS DISTINCT FROM j.lease + 1 THEN
            RAISE EXCEPTION 'job %: claim must carry lease %', p_job_id, j.lease + 1 USING ERRCODE = 'FY001';
        END IF;
        j.state := 'running';
        j.attempt := j.attempt + 1;
        j.lease := j.lease + 1;
        j.worker := p_data->>'worker';
        j.started_at := coalesce(j.started_at, p_at);
    WHEN 'progress' THEN
        j.bytes_done := coalesce((p_data->>'bytes_done')::bigint, j.bytes_done);
        j.bytes_total := coalesce((p_data->>'bytes_total')::bigint, j.bytes_total);
        IF p_data ? 'session' THEN
            j.session := nullif(p_data->'session', 'null'::jsonb);
        END IF;
    WHEN 'resolved' THEN
        -- A job enqueued from SQL, as the first worker to claim it settled it: canonical endpoints and details.
        j.source := coalesce(p_data->>'source', j.source);
        j.destination := coalesce(p_data->>'destination', j.destination);
        j.account := coalesce(p_data->>'account', j.account);
        j.spec := coalesce(p_data->'spec', j.spec);
        j.bytes_total := coalesce((p_data->>'bytes_total')::bigint, j.bytes_total);
    WHEN 'retry_scheduled' THEN
        j.state := 'queued';
        j.worker := NULL;
        j.run_at := (p_data->>'run_at')::timestamptz;
        j.last_error := p_data->>'error';
    WHEN 'deferred' THEN
        -- Rate limited: back to the queue without consuming the attempt.
        j.state := 'queued';
        j.worker := NULL;
        j.attempt := j.attempt - 1;
        j.run_at := (p_data->>'run_at')::timestamptz;
        j.last_error := p_data->>'reason';
    WHEN 'released' THEN
        -- Graceful shutdown handed the job back: not a failed attempt.
        j.state := 'queued';
        j.worker := NULL;
        j.attempt := j.attempt - 1;
        j.run_at := p_at;
    WHEN 'rescued' THEN
        -- The holder stopped heartbeating. The attempt counts, so a job that kills workers cannot loop forever.
        j.state := 'queued';
        j.worker := NULL;
        j.run_at := p_at;
        j.last_error := p_data->>'reason';
    WHEN 'cancel_requested' THEN
        IF j.state <> 'running' THEN
            RAISE EXCEPTION 'job %: cancel can only be requested while running, not %', p_job_id, j.state
                USING ERRCODE = 'FY002';
        END IF;
        j.cancel_requested := true;
    WHEN 'cancelled' THEN
        IF j.state = 'running' AND NOT claim_is_current THEN
            RAISE EXCEPTION 'job %: cancelled carries a stale lease', p_job_id USING ERRCODE = 'FY001';
        ELSIF j.state NOT IN ('queued', 'running') THEN
            RAISE EXCEPTION 'job %: cannot be cancelled while %', p_job_id, j.state USING ERRCODE = 'FY002';
        END IF;
        j.state := 'cancelled';
        j.worker := NULL;
        j.finished_at := p_at;
        j.last_error := coalesce(p_data->>'reason', j.last_error);
    WHEN 'succeeded' THEN
        j.state := 'succeeded';
        j.worker := NULL;
        j.finished_at := p_at;
        -- An earlier attempt's error stays in the history (ferry events JOB), not on a job that succeeded.
        j.last_error := NULL;
        j.bytes_done := coalesce((p_data->>'bytes_done')::bigint, j.bytes_done);
        j.bytes_total := coalesce((p_data->>'bytes_total')::bigint, j.bytes_total);
        j.result := nullif(p_data->'result', 'null'::jsonb);
    WHEN 'failed' THEN
        j.state := 'failed';
        j.worker := NULL;
        j.finished_at := p_at;
        j.last_error := p_data->>'error';
    WHEN 'discarded' THEN
        -- The failure stays as it was (error, finished_at); the job is just no longer one to act on.
        IF j.state <> 'failed' THEN
            RAISE EXCEPTION 'job %: only failed jobs can be discarded, this one is %', p_job_id, j.state
                USING ERRCODE = 'FY002', HINT = 'Cancel a job that has not finished (ferry cancel).';
        END IF;
        j.state := 'discarded';
    WHEN 'requeued' THEN
        IF j.state NOT IN ('failed', 'cancelled', 'discarded') THEN
            RAISE EXCEPTION 'job %: only failed, cancelled or discarded jobs can be retried, this one is %', p_job_id, j.state
                USING ERRCODE = 'FY002';
        END IF;
        j.state := 'queued';
        j.attempt := 0;
        j.run_at := p_at;
        j.finished_at := NULL;
        j.cancel_requested := false;
        -- A retry with changed provider options carries the spec they make (ferry.requeued_spec, checked for
        -- producers by ferry.check_requeued).
        j.spec := coalesce(p_data->'spec', j.spec);
    ELSE
        RAISE EXCEPTION 'unknown event type %', p_type USING ERRCODE = 'FY005';
    END CASE;

    -- A cancel requested while running wins at the next point the job would wait again.
    IF j.state = 'queued' AND j.cancel_requested THEN
        j.state := 'cancelled';
        j.finished_at := p_at;
    END IF;
    RETURN j;
END
$$;
