import FerryCore

/// Dropbox `UploadSessionFinishError`.
enum FinishFailure: Error, Equatable {
    case lookup(SessionLookupFailure)
    case write(WriteFailure)
    case tooManyWriteOperations

    var json: JSONValue {
        switch self {
        case .lookup(let failure): return .object([".tag": .string("lookup_failed"), "lookup_failed": failure.json])
        case .write(let failure): return .object([".tag": .string("path"), "path": failure.json])
        case .tooManyWriteOperations: return .tag("too_many_write_operations")
        }
    }

    var summary: String {
        switch self {
        case .lookup(let failure): return "lookup_failed/" + failure.summary
        case .write(let failure): return "path/" + failure.summary
        case .tooManyWriteOperations: return "too_many_write_operations"
        }
    }
}
