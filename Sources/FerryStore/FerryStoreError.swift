/// Errors from Ferry's store, with stable codes and a description safe to show and log.
public struct FerryStoreError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// Another writer appended to the job first (optimistic concurrency); re-read and try again.
        case versionConflict = "version_conflict"
        /// The event came from a claim that is no longer current (SQLSTATE FY001).
        case staleLease = "stale_lease"
        /// The event is not allowed in the job's current state (SQLSTATE FY002).
        case invalidTransition = "invalid_transition"
        /// No such job or batch.
        case notFound = "not_found"
        /// A job names an account that does not exist.
        case unknownAccount = "unknown_account"
        /// An account with that name exists already.
        case accountExists = "account_exists"
        /// The account still has unfinished jobs.
        case accountInUse = "account_in_use"
        /// The account cannot be used until it is authorized again (token rejected or revoked).
        case accountNeedsReauthorization = "account_needs_reauthorization"
        /// The account's stored credentials are missing or do not decrypt.
        case credentials = "credentials"
        /// The account's secrets were sealed with another FERRY_SECRET_KEY than this process holds (a wrong key, or
        /// a key rotation that re-sealed them while it ran): the process's configuration, not the account's fault.
        case secretKeyMismatch = "secret_key_mismatch"
        /// An applied migration file changed since it was applied.
        case migrationChanged = "migration_changed"
        /// The database has migrations this build does not know (it is newer than this binary).
        case migrationUnknown = "migration_unknown"
        /// The migrations directory is missing or holds a misnamed file.
        case migrationFiles = "migration_files"
        /// A concurrent producer committed the same idempotency key during a bulk enqueue; nothing was written.
        case keyConflict = "key_conflict"
        /// An idempotency key was given again with different arguments.
        case keyReused = "key_reused"
        /// The database schema is not migrated.
        case notMigrated = "not_migrated"
        /// An archive file is missing, unreadable, or does not match its recorded checksum.
        case archiveFile = "archive_file"
        /// An archive file this database has no record of (made by another database, or its record was lost):
        /// restored only when asked for explicitly (`ferry archive restore --foreign`).
        case foreignArchive = "foreign_archive"
        /// Restoring an archive would collide with what the database holds now (a job or key exists again).
        case restoreConflict = "restore_conflict"
        /// A schedule with that name exists already (`ferry schedule add --replace` replaces it).
        case scheduleExists = "schedule_exists"
        /// The job or batch was archived: its events left PostgreSQL for an archive file (`ferry archive restore`
        /// brings them back).
        case archived = "archived"
        /// A second connection a command needs did not come (a pooler with one server connection for it, say).
        case connectionUnavailable = "connection_unavailable"
        /// The login may not do this (SQLSTATE 42501): it needs the schema owner (account commands, for example).
        case ownerRequired = "owner_required"
    }

    public var code: Code
    public var message: String
    /// What to do about it.
    public var fix: String?

    public init(_ code: Code, _ message: String, fix: String? = nil) {
        self.code = code
        self.message = message
        self.fix = fix
    }

    public var description: String {
        fix.map { "\(message); \($0)" } ?? message
    }
}
