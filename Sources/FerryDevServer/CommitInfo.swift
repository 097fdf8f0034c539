import FerryCore
import Foundation

/// Parsed Dropbox `CommitInfo` (the `commit` of finish, or the whole argument of `upload`).
struct CommitInfo: Sendable {
    var path: DropboxPath
    var mode: WriteMode = .add
    var autorename = false
    var clientModified: Date?
    var mute = false
    var strictConflict = false

    /// Parses and validates; unknown members and pattern problems are 400s, semantic ones 409 `malformed_path`
    /// (reported through `pathProblem` so each route can wrap it in its own error union). `known` is
    /// ``ArgumentFields/upload`` for `files/upload`, whose argument adds `content_hash`.
    static func parse(
        _ value: JSONValue, route: String, field: String = "", known: Set<String> = ArgumentFields.commitInfo
    ) throws(DropboxError) -> (CommitInfo?, DropboxPath.Problem?) {
        let where_ = field.isEmpty ? "" : field + "."
        guard case .object = value else { throw .badRequest(route: route, "\(field.isEmpty ? "request body" : field): expected object") }
        try ArgumentFields.refuseUnknown(value, known: known, route: route, field: field.isEmpty ? "request body" : field)
        guard let pathText = value["path"]?.stringValue else {
            throw .badRequest(route: route, "missing required field '\(where_)path'")
        }
        let path: DropboxPath
        do throws(DropboxPath.Problem) {
            path = try DropboxPath.parse(pathText, forWriting: true)
        } catch {
            if error == .patternMismatch {
                throw .badRequest(route: route, "\(where_)path: '\(pathText)' did not match pattern '(/(.|[\\r\\n])*)|(ns:[0-9]+(/.*)?)|(id:.*)'")
            }
            return (nil, error)
        }
        var info = CommitInfo(path: path)
        if let mode = value["mode"], !mode.isNull {
            switch try ArgumentFields.unionTag(mode, route: route, field: where_ + "mode", valued: ["update"]) {
            case "add": info.mode = .add
            case "overwrite": info.mode = .overwrite
            case "update":
                guard let rev = mode["update"]?.stringValue, rev.count >= 9,
                      rev.allSatisfy({ $0.isHexDigit && !$0.isUppercase })
                else { throw .badRequest(route: route, "\(where_)mode.update: invalid rev") }
                info.mode = .update(rev)
            default:
                throw .badRequest(route: route, "\(where_)mode: unknown tag")
            }
        }
        info.autorename = try bool(value, "autorename", route: route, prefix: where_) ?? false
        info.mute = try bool(value, "mute", route: route, prefix: where_) ?? false
        info.strictConflict = try bool(value, "strict_conflict", route: route, prefix: where_) ?? false
        if let modified = value["client_modified"], !modified.isNull {
            guard let text = modified.stringValue, let date = DropboxTimestamp.parse(text) else {
                throw .badRequest(route: route, "\(where_)client_modified: time data does not match format '%Y-%m-%dT%H:%M:%SZ'")
            }
            info.clientModified = date
        }
        return (info, nil)
    }

    private static func bool(_ value: JSONValue, _ key: String, route: String, prefix: String) throws(DropboxError) -> Bool? {
        guard let member = value[key], !member.isNull else { return nil }
        guard let b = member.boolValue else { throw .badRequest(route: route, "\(prefix)\(key): expected boolean") }
        return b
    }
}
