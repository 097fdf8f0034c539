import FerryCore
import Foundation

/// Dropbox `CommitInfo`: where and how an upload is committed (the argument of `files/upload`,
/// the `commit` of `upload_session/finish`).
public struct DropboxCommitInfo: Sendable, Hashable {
    /// Target path, e.g. `/Photos/a.jpg` (or `id:...`).
    public var path: String
    public var mode: Mode
    /// Let Dropbox pick another name on a conflict instead of failing.
    public var autorename: Bool
    /// Modification time shown to the user; sent in whole seconds.
    public var clientModified: Date?
    /// Don't notify the user's devices.
    public var mute: Bool
    /// Treat identical content at the target as a conflict too.
    public var strictConflict: Bool

    public init(path: String, mode: Mode = .add, autorename: Bool = false, clientModified: Date? = nil, mute: Bool = false, strictConflict: Bool = false) {
        self.path = path
        self.mode = mode
        self.autorename = autorename
        self.clientModified = clientModified
        self.mute = mute
        self.strictConflict = strictConflict
    }

    /// The `CommitInfo` JSON object (`client_modified` only when set).
    public var json: JSONValue {
        var members: [String: JSONValue] = [
            "path": .string(path),
            "mode": mode.json,
            "autorename": .bool(autorename),
            "mute": .bool(mute),
            "strict_conflict": .bool(strictConflict),
        ]
        if let clientModified { members["client_modified"] = .string(DropboxTimestamp.format(clientModified)) }
        return .object(members)
    }
}
