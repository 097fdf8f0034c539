-- The batch history is append-only for every role, the owner included: changes and truncation raise.
CREATE OR REPLACE FUNCTION ferry.forbid_batch_event_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ferry.batch_events is append-only: % is not allowed', TG_OP
        USING ERRCODE = 'FY010',
              HINT = 'Batch events follow from job events; append to ferry.events instead.';
END
$$;
