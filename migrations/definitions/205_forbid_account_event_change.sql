-- The account history is append-only for every role, the owner included: changes and truncation raise.
CREATE OR REPLACE FUNCTION ferry.forbid_account_event_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ferry.account_events is append-only: % is not allowed', TG_OP
        USING ERRCODE = 'FY010', HINT = 'Record a change by appending a new account event.';
END
$$;
