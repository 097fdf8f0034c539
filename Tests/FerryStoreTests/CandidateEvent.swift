import Foundation

/// An event a fold test appends through `ferry.events` and folds in Swift.
struct CandidateEvent: Sendable, CustomStringConvertible {
    var jobID: UUID
    var version: Int
    var type: String
    /// JSON text of the event's data.
    var data: String
    /// A timestamptz literal.
    var recordedAt: String

    var description: String { "v\(version) \(type) \(data)" }
}
