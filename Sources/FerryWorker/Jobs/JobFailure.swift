import Foundation

/// How a failed attempt should be treated. `description` is what lands in `last_error`: never put secrets in it.
public struct JobFailure: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Temporary (5xx, timeout, dropped connection): retry with backoff until attempts run out.
        case retryable
        /// Will not get better by retrying (missing source, rejected path): fail now.
        case permanent
        /// Rate limited: come back at this time without consuming an attempt.
        case rateLimited(until: Date)
        /// Cannot run until a person acts (the account needs `ferry account login`): back to the queue without
        /// consuming an attempt; claims skip the job until the account is usable again.
        case held
        /// This machine ran short of something (disk space, file descriptors): back to the queue without consuming
        /// an attempt, after a backoff that grows while the shortage lasts (`WorkerConfiguration.shortageBackoff`).
        case shortage(ResourceShortage)
    }

    public var kind: Kind
    /// A stable, low-cardinality code for metrics and branching (for example `source_changed`).
    public var code: String
    public var message: String
    /// For a held job, the account it waits for when that is known. Claims skip a job only while the account the
    /// job itself names is not active: a job held for another account (a copy's source, a job naming none) is
    /// deferred instead, or it would be claimed again at once.
    public var heldAccount: String?

    public init(_ kind: Kind, code: String, _ message: String) {
        self.kind = kind
        self.code = code
        self.message = message
    }

    public static func retryable(_ code: String, _ message: String) -> JobFailure { .init(.retryable, code: code, message) }
    public static func permanent(_ code: String, _ message: String) -> JobFailure { .init(.permanent, code: code, message) }
    public static func rateLimited(until: Date, _ message: String) -> JobFailure {
        .init(.rateLimited(until: until), code: "rate_limited", message)
    }

    public static func held(_ code: String, _ message: String) -> JobFailure { .init(.held, code: code, message) }

    /// The machine is short of `resource`; the code is the shortage's (`no_space`, `fd_limit`).
    public static func shortage(_ resource: ResourceShortage, _ message: String) -> JobFailure {
        .init(.shortage(resource), code: resource.rawValue, message)
    }

    /// The shortage `error` (a failed system call) reports, as a job failure; nil for any other error.
    static func shortage(of error: POSIXFailure) -> JobFailure? {
        ResourceShortage(errno: error.code).map { .shortage($0, error.description) }
    }

    /// This worker's FERRY_SECRET_KEY does not open the account's secrets (re-sealed under a new key while it ran):
    /// not the job's fault, so it comes back in a while, for a worker with the right key, without using an attempt.
    public static func secretKeyMismatch(_ message: String) -> JobFailure {
        .init(.rateLimited(until: Date().addingTimeInterval(15)), code: "secret_key_mismatch", message)
    }

    /// The account's secrets are sealed with a stray key (not the one the workers and the other accounts use): the
    /// account is held until a person re-seals it, and so are its jobs.
    public static func sealedWithStrayKey(account: String, _ message: String) -> JobFailure {
        var failure = JobFailure(.held, code: "secret_key_mismatch", message)
        failure.heldAccount = account
        return failure
    }

    public var description: String { "\(code): \(message)" }
}

/// Thrown inside a handler when its claim was lost (the job was rescued or cancelled elsewhere): the attempt
/// must end without writing anything.
public struct LeaseLost: Error, Sendable {}
