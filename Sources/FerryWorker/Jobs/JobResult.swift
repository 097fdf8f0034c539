import FerryCore

/// What a successful attempt produced.
public struct JobResult: Sendable {
    /// Bytes moved (the final `bytes_done`).
    public var bytes: Int64?
    /// Details kept on the `succeeded` event (for example the remote metadata or content hash).
    public var details: JSONValue?

    public init(bytes: Int64? = nil, details: JSONValue? = nil) {
        self.bytes = bytes
        self.details = details
    }
}
