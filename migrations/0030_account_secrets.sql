-- Each account kind's own secrets as one sealed value of its own shape (issue 22): a JSON object sealed whole,
-- bound to its account ("ferry.accounts/NAME/secrets"), whose fields the kind names (Dropbox {"app_secret"},
-- S3 {"access_key_id", "secret_access_key"}, Flickr {"api_key"}). It replaces app_secret_sealed, which held a
-- Dropbox app secret, S3 keys as JSON text or a Flickr API key under one Dropbox word.
--
-- The OAuth link's tokens keep their columns: the refresh token is written by `ferry account login`, the access
-- token by workers, which may update only that one (least privilege, 0006).
--
-- Existing values cannot be re-sealed here (PostgreSQL never holds the key): an account added before this
-- migration keeps app_secret_sealed, which its kind reads as before, until `ferry account rekey` moves it into
-- the new shape. Workers read the new column through their table-wide SELECT; producers' column grants (0016)
-- leave it out, as every sealed column.
ALTER TABLE ferry.accounts ADD COLUMN secrets_sealed bytea;

COMMENT ON COLUMN ferry.accounts.secrets_sealed IS
    'The account kind''s secrets: one JSON object sealed by Ferry (AES-GCM), never readable by PostgreSQL.';
COMMENT ON COLUMN ferry.accounts.app_secret_sealed IS
    'Before schema 30: the one secret of an account (its kind reads it); ferry account rekey moves it to secrets_sealed.';

-- account_status says has_secrets, not has_app_secret: a column rename that CREATE OR REPLACE cannot do. The
-- definition (715_account_status.sql) creates it again with its grants.
DROP VIEW ferry.account_status;
DELETE FROM ferry.schema_definitions WHERE name = 'account_status';
