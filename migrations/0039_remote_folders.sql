-- Providers by capability (issue 31).
--
-- Remote folders a fleet creates once: services that address files by id and allow many folders of one name in a
-- folder (no path is unique there) would get one folder per worker racing to create it. A worker claims a folder's
-- path here before it creates it (definition 520); the claim's holder looks for it, creates it when absent and
-- records its id; every other worker waits for the id. A claim whose holder died goes stale and is taken over (the
-- new holder looks first, so a folder created just before the crash is found, not made twice).
-- The scope names the account space as its provider writes it; nothing here knows any provider.
CREATE TABLE ferry.remote_folders (
    scope      text        NOT NULL CHECK (octet_length(scope) BETWEEN 1 AND 1024),
    path       text        NOT NULL CHECK (octet_length(path) BETWEEN 1 AND 8192),
    remote_id  text        CHECK (octet_length(remote_id) BETWEEN 1 AND 1024),
    claimed_by text        NOT NULL CHECK (octet_length(claimed_by) <= 256),
    claimed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (scope, path)
);
COMMENT ON TABLE ferry.remote_folders IS
    'Folders workers created on services without unique paths, by account scope and path: each is created once fleet-wide.';
GRANT SELECT, INSERT, UPDATE, DELETE ON ferry.remote_folders TO ferry_worker;
