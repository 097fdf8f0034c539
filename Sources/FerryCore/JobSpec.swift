import Foundation

/// A validated job, ready to become an `enqueued` event.
public struct JobSpec: Sendable, Hashable {
    public var jobID: UUID
    public var kind: JobKind
    /// Canonical source (absolute local path, URL, or `dropbox:ACCOUNT:/path`).
    public var source: String
    /// Canonical destination; for uploads into a folder, the full path including the file name.
    public var destination: String
    /// The account the job's provider uses, if any.
    public var account: String?
    /// The provider the account must belong to (checked at enqueue; not part of the event).
    public var accountProvider: String?
    /// A job without an account uses the only account of `accountProvider` (resolved at enqueue).
    public var usesOnlyAccount = false
    /// A copy's source account and its provider (checked at enqueue; the worker reads it from the details).
    public var sourceAccount: String?
    public var sourceAccountProvider: String?
    public var queue: String
    public var batch: String?
    public var priority: Int64
    public var maxAttempts: Int64
    /// Not before this time; `nil` means now (the enqueue transaction's time).
    public var runAt: Date?
    public var idempotencyKey: String?
    public var metadata: JSONValue?
    public var bytesTotal: Int64?
    /// Handler details: for uploads the source's size, mtime and inode as seen at enqueue.
    public var details: [String: JSONValue]
    /// The trace the job's attempts join (kept in the `enqueued` event; not part of the idempotency fingerprint).
    public var traceparent: TraceParent?

    public init(
        jobID: UUID, kind: JobKind, source: String, destination: String, account: String?, queue: String,
        batch: String?, priority: Int64, maxAttempts: Int64, runAt: Date?, idempotencyKey: String?,
        metadata: JSONValue?, bytesTotal: Int64?, details: [String: JSONValue]
    ) {
        self.jobID = jobID
        self.kind = kind
        self.source = source
        self.destination = destination
        self.account = account
        self.queue = queue
        self.batch = batch
        self.priority = priority
        self.maxAttempts = maxAttempts
        self.runAt = runAt
        self.idempotencyKey = idempotencyKey
        self.metadata = metadata
        self.bytesTotal = bytesTotal
        self.details = details
    }

    /// Takes a provider's answer: endpoints, account, details, and a batch for a job that fans out.
    public mutating func apply(_ resolved: ResolvedEndpoint) {
        source = resolved.source
        destination = resolved.destination
        account = resolved.account
        accountProvider = resolved.accountProvider
        usesOnlyAccount = resolved.usesOnlyAccount
        sourceAccount = resolved.sourceAccount
        sourceAccountProvider = resolved.sourceAccountProvider
        details = resolved.details
        // Children of a listing join their parent's batch, so the parent needs one.
        if resolved.fansOut && batch == nil { batch = jobID.uuidString.lowercased() }
    }

    /// The payload of this job's `enqueued` event.
    public var enqueuedEventData: JSONValue {
        var data: [String: JSONValue] = [
            "kind": .string(kind.rawValue),
            "queue": .string(queue),
            "priority": .int(priority),
            "max_attempts": .int(maxAttempts),
            "source": .string(source),
            "destination": .string(destination),
            "spec": .object(details),
        ]
        if let batch { data["batch"] = .string(batch) }
        if let account { data["account"] = .string(account) }
        if let idempotencyKey { data["key"] = .string(idempotencyKey) }
        if let runAt { data["run_at"] = .string(ScheduleTime.iso8601(runAt)) }
        if let bytesTotal { data["bytes_total"] = .int(bytesTotal) }
        if let metadata { data["metadata"] = metadata }
        if let traceparent { data["traceparent"] = .string(traceparent.description) }
        return .object(data)
    }
}
