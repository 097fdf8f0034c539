-- Providers are plug-ins: the schema stops naming them.
--
-- Which providers exist is the registry's business (FerryWorker's ProviderRegistry, checked by `ferry account add`
-- and at enqueue); the database only keeps a provider name well formed, so adding a provider needs no migration.
-- Non-secret provider settings (an S3 region, path-style addressing …) live in `settings`; secrets stay sealed.
ALTER TABLE ferry.accounts DROP CONSTRAINT accounts_provider_check;
ALTER TABLE ferry.accounts ADD CONSTRAINT accounts_provider_name CHECK (provider ~ '^[a-z][a-z0-9-]{0,31}$');
ALTER TABLE ferry.accounts ADD COLUMN settings jsonb NOT NULL DEFAULT '{}'::jsonb
    CHECK (jsonb_typeof(settings) = 'object');
