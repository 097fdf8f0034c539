-- The history is never rewritten.
CREATE OR REPLACE FUNCTION ferry.queue_events_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ferry.queue_events is append-only' USING ERRCODE = 'insufficient_privilege',
        HINT = 'pause or resume with ferry queue pause|resume NAME';
END
$$;
