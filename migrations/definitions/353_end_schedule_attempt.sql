-- A firing that ended (well or badly, but with its worker alive) removes its attempt (definition 352).
CREATE OR REPLACE FUNCTION ferry.end_schedule_attempt(p_attempt bigint, p_worker text) RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    DELETE FROM ferry.schedule_attempts WHERE position = p_attempt AND worker = p_worker
$$;

REVOKE EXECUTE ON FUNCTION ferry.end_schedule_attempt(bigint, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ferry.end_schedule_attempt(bigint, text) TO ferry_worker;
