/// Thrown inside a dry run's transaction once everything was checked, so that nothing of it is committed.
struct DryRunRollback: Error {}
