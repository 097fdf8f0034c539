-- Schedule events obey the rules of ferry schedule add|pause|resume|remove|run whoever appends them (issue 30: a
-- producer inserting straight into ferry.schedule_events fired a job every second, scheduled a single file and
-- a pattern that killed every worker). Raises SQLSTATE 22023 with the field in COLUMN and the fix in HINT.
--
-- Checked for every role but the owner: the recurrence (every_seconds from ferry.settings'
-- schedule_min_interval_seconds, 60 as the CLI's minimum unless the owner changed it, to a year, or a cron of printable text with a zone
-- name), the template's shape and size, that an upload template is a folder walked at each tick (tree), and the
-- template as a job would be enqueued (ferry.check_enqueued: queue, priority, attempts, batch, metadata, local
-- paths, credentials, filters). Workers check the rest when they fire it, as for any enqueued job.
CREATE OR REPLACE FUNCTION ferry.check_schedule_event() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    d        jsonb := NEW.data;
    t        jsonb := NEW.data -> 'template';
    minimum  bigint;
    field    text;
    problem  text;
    hint     text;
    extra    text;
BEGIN
    -- The owner may anything, as with job events (definition 240): it runs ferry migrate, repairs and tests.
    IF pg_has_role(current_user, (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = TG_RELID), 'USAGE') THEN
        RETURN NEW;
    END IF;
    IF NEW.type NOT IN ('added', 'replaced') THEN
        -- Pause, resume, remove, run: small data of printable text (a pause's reason is shown to operators).
        IF octet_length(d::text) > 4096 OR coalesce(d ->> 'reason' ~ '[\x01-\x1f\x7f]', false) THEN
            RAISE EXCEPTION 'data: at most 4 KiB of printable text' USING ERRCODE = 'invalid_parameter_value',
                COLUMN = 'data', HINT = 'Change schedules with ferry schedule pause|resume|remove|run.';
        END IF;
        RETURN NEW;
    END IF;
    minimum := coalesce((SELECT st.value::bigint FROM ferry.settings st
                          WHERE st.name = 'schedule_min_interval_seconds' AND st.value ~ '^[0-9]{1,9}$'), 60);

    IF (d ? 'every_seconds') = (d ? 'cron') THEN
        field := 'every_seconds'; problem := 'give every_seconds or cron, one of them';
        hint := 'ferry schedule add NAME --every 1h or --cron "0 * * * *".';
    ELSIF d ? 'every_seconds' AND (jsonb_typeof(d -> 'every_seconds') <> 'number' OR (d ->> 'every_seconds') !~ '^[0-9]{1,12}$'
                                   OR (d ->> 'every_seconds')::bigint NOT BETWEEN minimum AND 366 * 86400) THEN
        field := 'every_seconds'; problem := format('must be a whole number of seconds from %s to a year', minimum);
        hint := 'Schedules tick at most once a minute; use --every 1m or longer.';
    ELSIF d ? 'cron' AND (jsonb_typeof(d -> 'cron') <> 'string' OR octet_length(d ->> 'cron') NOT BETWEEN 1 AND 200
                          OR (d ->> 'cron') ~ '[\x01-\x1f\x7f]') THEN
        field := 'cron'; problem := 'must be a cron expression of at most 200 printable bytes';
        hint := 'Write five fields such as "0 6 * * *", or @daily.';
    ELSIF jsonb_typeof(d -> 'timezone') IS DISTINCT FROM 'string' OR (d ->> 'timezone') !~ '^[A-Za-z0-9_+/-]{1,64}$' THEN
        field := 'timezone'; problem := 'must be a time zone name such as UTC or Europe/Paris';
        hint := 'ferry schedule add --timezone ZONE.';
    ELSIF jsonb_typeof(d -> 'next_tick') IS DISTINCT FROM 'string'
          OR (d ->> 'next_tick') !~ '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:?\d\d)$' THEN
        field := 'next_tick'; problem := 'must be an ISO 8601 time'; hint := 'Add schedules with ferry schedule add.';
    ELSIF d ? 'overlap' AND coalesce(d ->> 'overlap' NOT IN ('skip', 'allow'), true) THEN
        field := 'overlap'; problem := 'must be skip or allow'; hint := 'ferry schedule add --overlap skip|allow.';
    ELSIF jsonb_typeof(t) IS DISTINCT FROM 'object' OR octet_length(t::text) > 65536 THEN
        field := 'template'; problem := 'must be a JSON object of at most 64 KiB'; hint := 'Add schedules with ferry schedule add.';
    ELSIF (SELECT min(k) FROM jsonb_object_keys(t) k
            WHERE k <> ALL (ARRAY['kind', 'source', 'to', 'batch', 'queue', 'priority', 'max_attempts', 'metadata',
                                  'options', 'option_text'])) IS NOT NULL THEN
        field := 'template'; problem := 'has fields ferry schedule add never writes (--key and --run-at belong to the schedule)';
        hint := 'Use only kind, source, to, batch, queue, priority, max_attempts, metadata, options, option_text.';
    ELSIF jsonb_typeof(t -> 'to') IS DISTINCT FROM 'string' THEN
        field := 'template.to'; problem := 'missing'; hint := 'Give the destination as a string.';
    ELSIF coalesce(jsonb_typeof(t -> 'options'), 'object') <> 'object' OR coalesce(jsonb_typeof(t -> 'option_text'), 'object') <> 'object' THEN
        field := 'template.options'; problem := 'must be JSON objects'; hint := 'Add schedules with ferry schedule add.';
    ELSIF t ->> 'kind' = 'upload' AND coalesce(t #> '{options,tree}', 'false'::jsonb) <> 'true'::jsonb
          AND coalesce(t #>> '{option_text,tree}', '') <> 'true' THEN
        field := 'template.kind'; problem := 'a scheduled upload sends a folder walked at each tick, not a single file';
        hint := 'ferry schedule add NAME --every 1d -- upload DIR --recursive --to DEST/';
    ELSIF (t ? 'options' AND (SELECT count(*) FROM jsonb_object_keys(t -> 'options')) > 64)
          OR (t ? 'option_text' AND (SELECT count(*) FROM jsonb_object_keys(t -> 'option_text')) > 64) THEN
        field := 'template.options'; problem := 'more than 64 options'; hint := 'Give only the options the job needs.';
    ELSE
        -- A text option of the command line (--option filter=…) is the same filter once typed.
        extra := ferry.filter_problem(t #> '{option_text,filter}');
        IF extra IS NOT NULL THEN
            field := 'template.filter'; problem := extra;
            hint := 'Give filters with --include, --exclude and the size and age flags, within the limits in docs/cli.md.';
        END IF;
    END IF;
    IF field IS NOT NULL THEN
        RAISE EXCEPTION '%: %', field, problem USING ERRCODE = 'invalid_parameter_value', COLUMN = field, HINT = hint;
    END IF;

    -- The template as the job it enqueues at each tick (a template is not one yet: defaults stand in).
    PERFORM ferry.check_enqueued(jsonb_strip_nulls(jsonb_build_object(
        'kind', t -> 'kind', 'queue', coalesce(t -> 'queue', '"default"'), 'priority', coalesce(t -> 'priority', '0'),
        'max_attempts', coalesce(t -> 'max_attempts', '10'), 'source', t -> 'source', 'destination', t -> 'to',
        'batch', t -> 'batch', 'metadata', t -> 'metadata',
        'spec', jsonb_build_object('unresolved', jsonb_build_object('options', coalesce(t -> 'options', '{}'))))), 'template.');
    RETURN NEW;
END
$$;

CREATE OR REPLACE TRIGGER schedule_events_check BEFORE INSERT ON ferry.schedule_events
    FOR EACH ROW EXECUTE FUNCTION ferry.check_schedule_event();
