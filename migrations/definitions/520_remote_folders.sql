-- A worker's claim on creating a remote folder (table ferry.remote_folders, migration 0039). Answers the recorded
-- id when there is one; otherwise claimed = true when this caller now holds the claim (a new one, or a stale one
-- taken over) and must look for the folder, create it if absent and record its id; claimed = false with no id
-- when another worker holds a fresh claim (wait and ask again).
CREATE OR REPLACE FUNCTION ferry.claim_remote_folder(p_scope text, p_path text, p_owner text, p_stale interval)
RETURNS TABLE (remote_id text, claimed boolean)
LANGUAGE plpgsql AS $$
DECLARE
    found ferry.remote_folders%ROWTYPE;
BEGIN
    INSERT INTO ferry.remote_folders (scope, path, claimed_by) VALUES (p_scope, p_path, p_owner)
        ON CONFLICT DO NOTHING;
    IF FOUND THEN
        RETURN QUERY SELECT NULL::text, true;
        RETURN;
    END IF;
    SELECT * INTO found FROM ferry.remote_folders f WHERE f.scope = p_scope AND f.path = p_path FOR UPDATE;
    IF found.remote_id IS NOT NULL THEN
        RETURN QUERY SELECT found.remote_id, false;
    ELSIF found.claimed_by = p_owner OR found.claimed_at < now() - p_stale THEN
        UPDATE ferry.remote_folders f SET claimed_by = p_owner, claimed_at = now() WHERE f.scope = p_scope AND f.path = p_path;
        RETURN QUERY SELECT NULL::text, true;
    ELSE
        RETURN QUERY SELECT NULL::text, false;
    END IF;
END;
$$;

-- Records a claimed folder's id. The first id recorded stands: the answer is the id every worker uses.
CREATE OR REPLACE FUNCTION ferry.record_remote_folder(p_scope text, p_path text, p_id text)
RETURNS text
LANGUAGE sql AS $$
    UPDATE ferry.remote_folders f SET remote_id = coalesce(f.remote_id, p_id)
     WHERE f.scope = p_scope AND f.path = p_path
    RETURNING f.remote_id
$$;

-- Forgets a recorded folder whose id the service no longer knows (deleted by a person): the next claim creates it
-- again.
CREATE OR REPLACE FUNCTION ferry.forget_remote_folder(p_scope text, p_path text, p_id text)
RETURNS void
LANGUAGE sql AS $$
    DELETE FROM ferry.remote_folders f WHERE f.scope = p_scope AND f.path = p_path AND f.remote_id = p_id
$$;
