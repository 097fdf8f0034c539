import FerryCore

/// A job a running job discovered (a file in a listed folder, a photo in a photostream), to enqueue in its batch.
public struct FanOutChild: Sendable, Hashable {
    public var kind: JobKind
    public var source: String
    /// The full local path (fetch) or remote path (upload) of this one item.
    public var destination: String
    public var account: String?
    /// Unique per parent and item: enqueuing the same child twice (a listing that ran again) creates one job.
    public var idempotencyKey: String
    public var metadata: JSONValue?
    public var bytesTotal: Int64?
    public var details: [String: JSONValue]

    public init(
        kind: JobKind = .fetch, source: String, destination: String, account: String?, idempotencyKey: String,
        metadata: JSONValue? = nil, bytesTotal: Int64? = nil, details: [String: JSONValue] = [:]
    ) {
        self.kind = kind
        self.source = source
        self.destination = destination
        self.account = account
        self.idempotencyKey = idempotencyKey
        self.metadata = metadata
        self.bytesTotal = bytesTotal
        self.details = details
    }
}
