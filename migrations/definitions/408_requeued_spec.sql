-- A job's spec after a retry that changes provider options (`ferry retry JOB --option NAME=VALUE`, issue 24): the
-- options replace those of the same name. A job enqueued from SQL and not yet settled keeps its options under
-- unresolved.options, where the worker that settles it reads them; any other job keeps them at the top of its spec,
-- where its provider's details read them (DropboxUploadDetails' "mode", FlickrFetchDetails' "size" …). The
-- requeued event carries the result as "spec", which the fold takes as it is; ferry.check_requeued holds it to this.
CREATE OR REPLACE FUNCTION ferry.requeued_spec(p_spec jsonb, p_options jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE
        WHEN jsonb_typeof(p_options) IS DISTINCT FROM 'object' THEN p_spec
        WHEN jsonb_typeof(p_spec -> 'unresolved') = 'object' THEN
            jsonb_set(p_spec, '{unresolved,options}',
                      CASE WHEN jsonb_typeof(p_spec #> '{unresolved,options}') = 'object'
                           THEN p_spec #> '{unresolved,options}' ELSE '{}'::jsonb END || p_options)
        WHEN jsonb_typeof(p_spec) = 'object' THEN p_spec || p_options
        ELSE p_options
    END
$$;
