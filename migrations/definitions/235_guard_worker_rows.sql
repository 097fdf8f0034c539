-- The registration is the login's: set on insert, never changed, and changed or removed by another login only
-- when it is long gone and holds nothing (as rescue_stale_jobs forgets workers). Owners may do anything.
CREATE OR REPLACE FUNCTION ferry.guard_worker_rows() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF pg_has_role(session_user, (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = TG_RELID), 'USAGE') THEN
        RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;
    END IF;
    IF TG_OP = 'INSERT' THEN
        NEW.login := session_user;
        RETURN NEW;
    END IF;
    IF OLD.login <> session_user
       AND (OLD.heartbeat_at >= now() - interval '60 seconds'
            OR EXISTS (SELECT 1 FROM ferry.jobs j WHERE j.state = 'running' AND j.worker = OLD.name)) THEN
        RAISE EXCEPTION 'permission denied to % worker %: it is registered by login %, not %', lower(TG_OP), OLD.name,
            OLD.login, session_user
            USING ERRCODE = 'insufficient_privilege', HINT = 'Give each worker a name of its own (ferry worker --name).';
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    NEW.login := CASE WHEN OLD.login <> session_user THEN session_user ELSE OLD.login END;
    RETURN NEW;
END
$$;
