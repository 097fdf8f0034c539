import Foundation
import FerryCore

extension JobEventType {
    /// The type named by a COPY field, matched on bytes (no String per event); `nil` for a name Ferry does not know.
    init?(copyText bytes: UnsafeRawBufferPointer) {
        for candidate in Self.allCases {
            let name = candidate.literal
            if bytes.count == name.utf8CodeUnitCount && memcmp(bytes.baseAddress!, name.utf8Start, bytes.count) == 0 {
                self = candidate
                return
            }
        }
        return nil
    }

    /// The type's name as a static string.
    var literal: StaticString {
        switch self {
        case .enqueued: "enqueued"
        case .claimed: "claimed"
        case .progress: "progress"
        case .retryScheduled: "retry_scheduled"
        case .deferred: "deferred"
        case .released: "released"
        case .rescued: "rescued"
        case .cancelRequested: "cancel_requested"
        case .cancelled: "cancelled"
        case .succeeded: "succeeded"
        case .failed: "failed"
        case .requeued: "requeued"
        case .resolved: "resolved"
        case .discarded: "discarded"
        }
    }
}
