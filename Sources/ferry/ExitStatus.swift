import ArgumentParser

/// Documented exit codes (see docs/cli.md, "Exit codes"). Scripts branch on these.
enum ExitStatus {
    /// Success.
    static let ok: Int32 = 0
    /// The command ran but the answer is "no": projection differs, job not in a state that allows the action.
    static let negative: Int32 = 1
    /// Bad command line (unknown option, missing argument). Same as ArgumentParser's own usage errors.
    static let usage: Int32 = 64
    /// Invalid input: a job, path, URL, account or field was refused. Nothing was written.
    static let invalidInput: Int32 = 65
    /// No such job or batch.
    static let notFound: Int32 = 66
    /// The job or batch was archived: its events left PostgreSQL for an archive file (`ferry archive restore FILE`
    /// brings them back). Status, events and wait all answer so.
    static let archived: Int32 = 67
    /// PostgreSQL could not be reached (or went away). Nothing was written, or the command may be retried.
    static let databaseUnavailable: Int32 = 69
    /// An unexpected internal error.
    static let internalError: Int32 = 70
    /// A file could not be read or written (EX_IOERR): an archive directory, a disk full.
    static let ioError: Int32 = 74
    /// The database role may not do this (EX_NOPERM): log in as a member of the group role the message names.
    static let permissionDenied: Int32 = 77
    /// `ferry wait --timeout` passed before the batch or job finished (EX_TEMPFAIL: waiting again may succeed).
    static let timedOut: Int32 = 75
    /// Try again: a concurrent producer committed one of the same idempotency keys during a bulk enqueue (EX_TEMPFAIL).
    static let temporaryFailure: Int32 = 75
    /// The database schema is missing or out of date: run ferry migrate.
    static let notMigrated: Int32 = 78
    /// `ferry wait` interrupted by SIGINT (128 + 2, as shells report it).
    static let interrupted: Int32 = 130
    /// Configuration is missing or wrong: no FERRY_SECRET_KEY, or an account needs ferry account login.
    static let configuration: Int32 = 78
}
