import FerryCore

/// Sources named one by one (`ferry enqueue upload FILE|DIR… --to DEST`, `fetch SOURCE… --to PATH`, or an app's
/// list), for a streamed enqueue: a directory with `recursive` becomes one upload per file below it.
public struct EnqueueOperands: Sendable {
    public var kind: JobKind
    public var operands: [String]
    public var to: String
    /// Upload: walk directories, keeping each file's path below DIR under DEST (which ends with `/`).
    public var recursive: Bool
    /// The request for one source and destination, with the caller's options.
    public var make: @Sendable (_ source: String, _ to: String) -> JobRequest

    public init(
        kind: JobKind, operands: [String], to: String, recursive: Bool,
        make: @escaping @Sendable (_ source: String, _ to: String) -> JobRequest
    ) {
        self.kind = kind
        self.operands = operands
        self.to = to
        self.recursive = recursive
        self.make = make
    }
}
