-- The newest migration applied, for every role: commands check it before they act (exit 78, "run ferry migrate")
-- and readers may not read ferry.schema_migrations itself (its names and checksums are the owner's business).
CREATE OR REPLACE VIEW ferry.schema_version AS
SELECT coalesce(max(version), 0)::integer AS version FROM ferry.schema_migrations;

COMMENT ON VIEW ferry.schema_version IS 'The newest migration applied (ferry --version names the one a binary needs).';
GRANT SELECT ON ferry.schema_version TO ferry_reader, ferry_producer, ferry_worker;
