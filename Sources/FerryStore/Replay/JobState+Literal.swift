import FerryCore

extension JobState {
    /// The state's name as a static string, to compare with COPY bytes without building a String.
    var literal: StaticString {
        switch self {
        case .queued: "queued"
        case .running: "running"
        case .succeeded: "succeeded"
        case .failed: "failed"
        case .cancelled: "cancelled"
        case .discarded: "discarded"
        }
    }
}
