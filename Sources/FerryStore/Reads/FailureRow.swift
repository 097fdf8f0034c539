import Foundation
import Postgres

/// A failed job as the dashboard groups it: just enough to show a sample and to retry it.
public struct FailureRow: Sendable, Hashable {
    public var jobID: UUID
    public var batch: String?
    public var source: String
    public var destination: String
    public var lastError: String?
    public var finishedAt: PostgresTimestamp?
}
