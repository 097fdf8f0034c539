import FerryCore

/// `gdrive:ACCOUNT:/path` (a path from the top of the account's Drive; a folder ends in `/`) or
/// `gdrive:ACCOUNT:id:FILEID` (one file or folder by its Drive id).
public struct GoogleDriveLocation: Sendable, Hashable {
    /// What the location names in the account.
    public enum Target: Sendable, Hashable {
        /// An absolute path: `/`-separated names (Drive names may hold anything else, quotes and backslashes too).
        case path(String)
        /// A Drive file id.
        case id(String)
    }

    public var account: String
    public var target: Target

    /// Longest path taken.
    public static let maxPathBytes = 4096
    /// Longest id taken (Drive's are about 33 characters).
    public static let maxIDLength = 256

    public init(account: String, target: Target) {
        self.account = account
        self.target = target
    }

    public init(account: String, path: String) {
        self.init(account: account, target: .path(path))
    }

    /// The canonical text form, as stored in the job.
    public var text: String {
        switch target {
        case .path(let path): "gdrive:\(account):\(path)"
        case .id(let id): "gdrive:\(account):id:\(id)"
        }
    }

    /// The path, when the location names one.
    public var path: String? {
        if case .path(let path) = target { return path }
        return nil
    }

    /// Parses and checks the location, naming `field` in any refusal.
    public init(_ text: String, field: String, line: Int?) throws(ValidationIssue) {
        func issue(_ problem: String, _ fix: String) -> ValidationIssue {
            ValidationIssue(line: line, field: field, problem: problem, fix: fix)
        }
        let (name, remote) = try AccountLocationSyntax.split(
            text.dropFirst("gdrive:".count), field: field, line: line,
            noRemote: issue(
                "Google Drive location has no path after the account",
                "write gdrive:ACCOUNT:/path (a folder ends in /) or gdrive:ACCOUNT:id:FILEID"))
        account = name
        if let id = try AccountLocationSyntax.id(
            remote, maxLength: Self.maxIDLength,
            refusal: issue("a Drive file id has only letters, digits, - and _", "write gdrive:ACCOUNT:id:FILEID with the id from the file's link"))
        {
            target = .id(id)
            return
        }
        try AccountLocationSyntax.checkPath(remote, maxBytes: Self.maxPathBytes, issue: issue)
        target = .path(remote)
    }

    /// The names from the top down (`/a/b/` → `["a", "b"]`).
    public static func components(of path: String) -> [String] {
        path.split(separator: "/").map(String.init)
    }
}
