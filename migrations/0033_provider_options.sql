-- Provider options checked at enqueue from SQL (issue 24). ferry.enqueue accepted {"options": {"mod": "x"}} and
-- the job failed later on a worker. The options each provider takes are declared in Swift (FerryProviders); this
-- table is their copy in the database, rewritten by `ferry migrate` from those declarations whenever they differ,
-- and read by ferry.check_provider_options (definition 407), which ferry.enqueue_request calls.
--
-- One row per option a provider takes in one role, by the URI scheme of the job's remote side: `upload` (an
-- upload's destination), `fetch` (a fetch's source), `copy` (a copy's destination: its upload options and the
-- listing filter) and `copy_source` (a copy's source). A value's type is a string, a boolean, an integer from
-- min to max, or a string among choices.
CREATE TABLE ferry.provider_options (
    scheme   text   NOT NULL,
    kind     text   NOT NULL CHECK (kind IN ('upload', 'fetch', 'copy', 'copy_source')),
    name     text   NOT NULL,
    provider text   NOT NULL,
    type     text   NOT NULL CHECK (type IN ('string', 'boolean', 'integer', 'choice')),
    choices  text[] CHECK ((type = 'choice') = (choices IS NOT NULL)),
    min      bigint CHECK ((type = 'integer') = (min IS NOT NULL)),
    max      bigint CHECK ((type = 'integer') = (max IS NOT NULL)),
    PRIMARY KEY (scheme, kind, name)
);

COMMENT ON TABLE ferry.provider_options IS
    'The provider options ferry.enqueue accepts, by scheme and role; written by ferry migrate from the Swift providers.';

-- ferry.enqueue runs as its caller: producers and workers (which may enqueue) read the declarations; only the
-- schema owner (ferry migrate) writes them.
GRANT SELECT ON ferry.provider_options TO ferry_producer, ferry_worker;
