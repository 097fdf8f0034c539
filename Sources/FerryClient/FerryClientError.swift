import FerryCore

/// Why ``FerryClient`` refused or could not finish a request. Database errors (unreachable, schema not migrated,
/// a reused idempotency key …) come through as the store's own error types.
public struct FerryClientError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// Some requests are invalid; nothing was enqueued (``issues`` says which and how to fix them).
        case invalidRequests = "invalid_requests"
        /// No batch or job of that name or id.
        case notFound = "not_found"
        /// ``FerryClient/waitForBatch(_:timeout:)`` gave up.
        case timedOut = "timed_out"
    }

    public var code: Code
    /// For ``Code/invalidRequests``: every problem found, each naming its request (`line`, 1-based) and field.
    public var issues: [ValidationIssue]
    /// Problems found beyond those listed in ``issues`` (a streamed enqueue lists the first few).
    public var more: Int = 0
    public var message: String

    public var description: String {
        guard !issues.isEmpty else { return message }
        let more = more > 0 ? ["  … and \(more) more problem(s)"] : []
        return ([message] + issues.map { "  \($0.description)" } + more).joined(separator: "\n")
    }
}
