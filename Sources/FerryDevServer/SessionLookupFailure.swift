import FerryCore

/// Dropbox `UploadSessionLookupError`.
enum SessionLookupFailure: Error, Equatable {
    case notFound
    case incorrectOffset(correct: Int64)
    case closed
    case notClosed
    case payloadTooLarge
    case contentHashMismatch
    /// Concurrent sessions: an append whose offset is not a multiple of 4 MiB.
    case concurrentSessionInvalidOffset
    /// Concurrent sessions: a chunk other than the closing one whose size is not a multiple of 4 MiB.
    case concurrentSessionInvalidDataSize

    var json: JSONValue {
        switch self {
        case .notFound: return .tag("not_found")
        case .incorrectOffset(let correct):
            return .object([".tag": .string("incorrect_offset"), "correct_offset": .int(correct)])
        case .closed: return .tag("closed")
        case .notClosed: return .tag("not_closed")
        case .payloadTooLarge: return .tag("payload_too_large")
        case .contentHashMismatch: return .tag("content_hash_mismatch")
        case .concurrentSessionInvalidOffset: return .tag("concurrent_session_invalid_offset")
        case .concurrentSessionInvalidDataSize: return .tag("concurrent_session_invalid_data_size")
        }
    }

    var summary: String {
        switch self {
        case .notFound: return "not_found"
        case .incorrectOffset: return "incorrect_offset"
        case .closed: return "closed"
        case .notClosed: return "not_closed"
        case .payloadTooLarge: return "payload_too_large"
        case .contentHashMismatch: return "content_hash_mismatch"
        case .concurrentSessionInvalidOffset: return "concurrent_session_invalid_offset"
        case .concurrentSessionInvalidDataSize: return "concurrent_session_invalid_data_size"
        }
    }
}
