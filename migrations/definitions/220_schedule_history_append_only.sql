-- Neither history is ever rewritten, and nobody but the triggers writes the projection.
CREATE OR REPLACE FUNCTION ferry.schedule_history_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only', TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege',
        HINT = 'change schedules with ferry schedule add|pause|resume|remove';
END
$$;
