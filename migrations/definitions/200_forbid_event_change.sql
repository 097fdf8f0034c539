-- The append-only rule holds for every role, the owner included: triggers raise before any change.
CREATE OR REPLACE FUNCTION ferry.forbid_event_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ferry.events is append-only: % is not allowed', TG_OP
        USING ERRCODE = 'FY010',
              HINT = 'Record a change by appending a new event (for example with ferry cancel or ferry retry).';
END
$$;
