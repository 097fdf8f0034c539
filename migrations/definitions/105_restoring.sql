-- True inside a restore's transaction: its events come back with their projection rows as archived, so the
-- projection and batch triggers must not apply them a second time. (The triggers test the setting first, so an
-- ordinary append pays for one current_setting() call, not for this function.) SECURITY DEFINER: callers need not (and
-- must not) read ferry.archives. The setting alone proves nothing; the uncommitted token row does.
CREATE OR REPLACE FUNCTION ferry.restoring() RETURNS boolean
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    token text := current_setting('ferry.restore_token', true);
BEGIN
    IF coalesce(token, '') = '' THEN
        RETURN false;
    END IF;
    RETURN EXISTS (SELECT 1 FROM ferry.archives WHERE restore_token = token::uuid);
END
$$;
