import FerryCore
import Foundation

/// A job's columns as both stores can report them, for contract checks.
struct JobSnapshot: Sendable, Hashable {
    var state: JobState
    var attempt: Int
    var lease: Int64
    var worker: String?
    var cancelRequested: Bool
    var runAt: Date
    var queue: String
    var batch: String?
    var priority: Int
    var bytesDone: Int64
    var lastError: String?
}
