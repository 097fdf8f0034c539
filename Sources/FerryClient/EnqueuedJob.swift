import FerryCore
import FerryStore
import Foundation

/// One job ``FerryClient/enqueue(_:)`` or a streamed enqueue wrote (or found by its idempotency key).
public struct EnqueuedJob: Sendable, Hashable {
    public var id: UUID
    /// False when the idempotency key already named this job: nothing new was written.
    public var created: Bool
    /// 1-based line of the request, when it came from lines of input.
    public var line: Int?
    public var idempotencyKey: String?
    /// The job's source and destination as validated (absolute, normalized).
    public var source: String
    public var destination: String

    init(_ outcome: EnqueueOutcome, spec: JobSpec) {
        id = outcome.jobID
        source = spec.source
        destination = spec.destination
        created = outcome.created
        line = outcome.line
        idempotencyKey = outcome.idempotencyKey
    }
}
