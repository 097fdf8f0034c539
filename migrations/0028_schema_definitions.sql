-- Functions and views become definitions (issue: migrations as definitions).
--
-- Until now every change to a function was a numbered migration holding a whole new copy of it (project_events
-- in 5 files, claim_jobs in 4). From here on the current text of each function and view lives in one file of
-- migrations/definitions/, edited in place; `ferry migrate` applies such a file again, after the numbered
-- migrations, whenever its checksum differs from the one recorded here. Numbered migrations keep tables, indexes,
-- triggers, data moves and grants. The definitions of 0001–0027's objects are their text as of 0027, so on a
-- database migrated before they replace every function and view with itself.
--
-- Every text a definition was applied with stays recorded (the latest per name counts): a build whose text
-- matches an older record is older than the database and is refused, as a missing numbered migration is.

CREATE TABLE ferry.schema_definitions (
    name        text        NOT NULL,
    checksum    text        NOT NULL,
    applied_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (name, checksum)
);
COMMENT ON TABLE ferry.schema_definitions IS
    'Each text (SHA-256 of the file) a migrations/definitions/ file was applied with; the latest per name is current.';

-- Workers check at startup that every definition of their build is applied, as they check schema_migrations.
GRANT SELECT ON ferry.schema_definitions TO ferry_producer, ferry_worker;
