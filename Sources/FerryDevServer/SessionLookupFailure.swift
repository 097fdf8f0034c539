import FerryCore

/// Dropbox `UploadSessionLookupError`.
enum SessionLookupFailure: Error, Equatable {
    case notFound
    case incorrectOffset(correct: Int64)
    case closed
    case notClosed
    case payloadTooLarge
    case contentHashMismatch

    var json: JSONValue {
        switch self {
        case .notFound: return .tag("not_found")
        case .incorrectOffset(let correct):
            return .object([".tag": .string("incorrect_offset"), "correct_offset": .int(correct)])
        case .closed: return .tag("closed")
        case .notClosed: return .tag("not_closed")
        case .payloadTooLarge: return .tag("payload_too_large")
        case .contentHashMismatch: return .tag("content_hash_mismatch")
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
        }
    }
}
