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
        let rest = text.dropFirst("gdrive:".count)
        guard let colon = rest.firstIndex(of: ":") else {
            throw issue("Google Drive location has no path after the account", "write gdrive:ACCOUNT:/path (a folder ends in /) or gdrive:ACCOUNT:id:FILEID")
        }
        account = String(rest[..<colon])
        guard EndpointSyntax.isValidAccountName(account) else { throw EndpointSyntax.accountNameIssue(field: field, line: line) }
        let remote = String(rest[rest.index(after: colon)...])
        if remote.hasPrefix("id:") {
            let id = String(remote.dropFirst(3))
            guard !id.isEmpty, id.utf8.count <= Self.maxIDLength,
                id.utf8.allSatisfy({ EndpointSyntax.isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") })
            else {
                throw issue("a Drive file id has only letters, digits, - and _", "write gdrive:ACCOUNT:id:FILEID with the id from the file's link")
            }
            target = .id(id)
            return
        }
        try Self.checkPath(remote, issue: issue)
        target = .path(remote)
    }

    private static func checkPath(_ path: String, issue: (String, String) -> ValidationIssue) throws(ValidationIssue) {
        guard path.hasPrefix("/") else { throw issue("remote path must start with /", "write an absolute path such as /Backup/") }
        guard path.utf8.count <= maxPathBytes else { throw issue("remote path is longer than \(maxPathBytes) bytes", "shorten the path") }
        if path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw issue("remote path contains a control character", "use printable names")
        }
        let components = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (index, component) in components.enumerated() {
            if component.isEmpty && index < components.count - 1 {
                throw issue("remote path has an empty component (//)", "remove the doubled slash")
            }
            if component == "." || component == ".." {
                throw issue("remote path contains \(component)", "write the path without . or .. components")
            }
        }
    }

    /// The names from the top down (`/a/b/` → `["a", "b"]`).
    public static func components(of path: String) -> [String] {
        path.split(separator: "/").map(String.init)
    }
}
