import Foundation

/// One `ferry enqueue` of the failover run's producer: what it got back and how long it took.
struct EnqueueCall: Sendable {
    let name: String
    /// The job id it printed; nil if it failed.
    let id: String?
    let status: Int32
    let started: Date
    let seconds: Double
    /// It said `waiting for PostgreSQL`: it met the database unreachable or read-only and rode it out.
    let waited: Bool
    let stderr: String
}
