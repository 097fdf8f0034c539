import FerryCore

/// Dropbox `WriteError` (plus server-side I/O trouble, which becomes a 500).
enum WriteFailure: Error, Equatable {
    /// `conflict` with its `WriteConflictError` tag: `file`, `folder` or `file_ancestor`.
    case conflict(String)
    case malformedPath
    case disallowedName
    case tooManyWriteOperations
    /// `insufficient_space` (the `fail_commit_paths` fault).
    case insufficientSpace
    case io(String)

    init(_ problem: DropboxPath.Problem) {
        self = problem == .disallowedName ? .disallowedName : .malformedPath
    }

    /// The `WriteError` union value.
    var json: JSONValue {
        switch self {
        case .conflict(let kind): return .object([".tag": .string("conflict"), "conflict": .tag(kind)])
        case .malformedPath: return .object([".tag": .string("malformed_path")])
        case .disallowedName: return .tag("disallowed_name")
        case .tooManyWriteOperations: return .tag("too_many_write_operations")
        case .insufficientSpace: return .tag("insufficient_space")
        case .io: return .tag("other")
        }
    }

    /// Tag path for `error_summary`.
    var summary: String {
        switch self {
        case .conflict(let kind): return "conflict/\(kind)"
        case .malformedPath: return "malformed_path"
        case .disallowedName: return "disallowed_name"
        case .tooManyWriteOperations: return "too_many_write_operations"
        case .insufficientSpace: return "insufficient_space"
        case .io: return "other"
        }
    }
}
