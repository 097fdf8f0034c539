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
        /// PostgreSQL could not be reached, or the connection broke in use (SQLSTATE class 08, 57P01–57P03: an
        /// administrator's or a crash's shutdown, a server still starting): a new connection may succeed.
        case connectionLost = "connection_lost"
        /// The server refuses writes now (SQLSTATE 25006): a hot standby, a demoted primary during a failover.
        case readOnly = "read_only"
        /// The server's disk is full (SQLSTATE 53100): writes succeed again once space is freed.
        case diskFull = "disk_full"
        /// The server refused the login (password, role or database): waiting will not help.
        case loginRefused = "login_refused"
        /// The login lacks a privilege for this (SQLSTATE 42501); `fix` names the role it needs when the server says.
        case permissionDenied = "permission_denied"
        /// Any other error from PostgreSQL; `sqlState` says which.
        case database = "database"
    }

    public var code: Code
    public var message: String
    /// What to do about it.
    public var fix: String?
    /// The server's SQLSTATE, for errors that came from PostgreSQL (`FerryStoreError(classifying:)`).
    public var sqlState: String?

    public init(_ code: Code, _ message: String, fix: String? = nil, sqlState: String? = nil) {
        self.code = code
        self.message = message
        self.fix = fix
        self.sqlState = sqlState
    }

    public var description: String {
        fix.map { "\(message); \($0)" } ?? message
    }
}
