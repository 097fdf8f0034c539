import FerryCore

/// What a job was enqueued to do, as `ferry.jobs` records it: its kind, queue and batch, where from and to, under
/// which account, and its handler details and metadata. A claim (``ClaimedJob``) and a job of the in-memory store
/// both carry one (``JobAssignmentCarrier``).
public struct JobAssignment: Sendable, Hashable {
    public var kind: JobKind
    public var queue: String
    public var batch: String?
    public var source: String
    public var destination: String
    public var account: String?
    /// Handler details recorded at enqueue (JSON object text).
    public var spec: String
    /// The caller's metadata (JSON object text), if any.
    public var metadata: String?

    public init(
        kind: JobKind, queue: String, batch: String? = nil, source: String, destination: String, account: String? = nil,
        spec: String = "{}", metadata: String? = nil
    ) {
        (self.kind, self.queue, self.batch) = (kind, queue, batch)
        (self.source, self.destination, self.account) = (source, destination, account)
        (self.spec, self.metadata) = (spec, metadata)
    }
}
