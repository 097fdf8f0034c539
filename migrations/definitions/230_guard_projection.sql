-- Only the owner writes ferry.jobs (the projection trigger is SECURITY DEFINER, so its writes are the owner's).
-- Not "any write from inside a trigger": a role holding UPDATE (for row locks) could then write ferry.jobs from a
-- trigger on a temporary table of its own. Catalogs are qualified: a temporary table named pg_class would come
-- first on the caller's search_path.
CREATE OR REPLACE FUNCTION ferry.guard_projection() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF NOT pg_has_role(current_user, (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = TG_RELID), 'USAGE') THEN
        RAISE EXCEPTION 'ferry.jobs is a projection of ferry.events: % is not allowed', TG_OP
            USING ERRCODE = 'FY011', HINT = 'Append an event to ferry.events instead.';
    END IF;
    RETURN NULL;
END
$$;
