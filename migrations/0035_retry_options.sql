-- Retry with other provider options (issue 24): `ferry retry JOB|--batch B --option NAME=VALUE`. A `requeued`
-- event may carry "options" (the change) and "spec" (the job's spec with them, ferry.requeued_spec, definition 408),
-- which the fold takes as it is (definition 305 and JobFold). ferry.check_requeued (definition 409) holds every
-- such event to the options the job's own provider declares here, except those fixed at enqueue (account, tree,
-- recursive, filter), and to nothing else of the job: the store checks it for every retry with options, the raw
-- events' check (definition 240) for producers. Commands and workers of this release wait for this schema, so no
-- retry with options reaches a database whose fold would drop them.
COMMENT ON TABLE ferry.provider_options IS
    'The provider options ferry.enqueue accepts, by scheme and role; written by ferry migrate from the Swift providers. ferry.check_requeued reads them for ferry retry --option.';
