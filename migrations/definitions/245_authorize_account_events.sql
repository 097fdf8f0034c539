-- Workers write two kinds of account history (a refreshed token, an account that needs re-authorization); the
-- rest (added, linked, revoked, removed, updated) is the account commands', which run as the owner.
CREATE OR REPLACE FUNCTION ferry.authorize_account_events() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    allowed      text[];
    refused_type text;
BEGIN
    IF pg_has_role(current_user, (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = TG_RELID), 'USAGE') THEN
        RETURN NULL;
    END IF;
    allowed := CASE WHEN pg_has_role(current_user, 'ferry_worker', 'USAGE')
                    THEN ARRAY['token_refreshed', 'needs_reauth'] ELSE '{}' END;
    SELECT min(e.type) INTO refused_type FROM new_account_events e WHERE e.type <> ALL (allowed);
    IF refused_type IS NOT NULL THEN
        RAISE EXCEPTION 'permission denied to append a "%" account event as role "%": it needs the schema owner',
            refused_type, current_user
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'Workers record token_refreshed and needs_reauth; ferry account commands run as the owner.';
    END IF;
    RETURN NULL;
END
$$;
