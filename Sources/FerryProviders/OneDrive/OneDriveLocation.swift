import FerryCore

/// `onedrive:ACCOUNT:/path` (a path from the top of the account's drive; a folder ends in `/`) or
/// `onedrive:ACCOUNT:id:ITEMID` (one item by its id).
public struct OneDriveLocation: Sendable, Hashable {
    public enum Target: Sendable, Hashable {
        /// An absolute path of `/`-separated names.
        case path(String)
        /// A driveItem id.
        case id(String)
    }

    public var account: String
    public var target: Target

    /// Longest path taken (OneDrive's own limit is 400 characters for a whole path in business accounts).
    public static let maxPathBytes = 1024
    /// Longest name taken (OneDrive: 255 characters).
    public static let maxNameBytes = 255
    public static let maxIDLength = 256
    /// Characters OneDrive refuses in names (`:` would also end a `root:/path:` address early).
    public static let forbiddenCharacters: Set<Character> = ["\"", "*", ":", "<", ">", "?", "\\", "|"]

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
        case .path(let path): "onedrive:\(account):\(path)"
        case .id(let id): "onedrive:\(account):id:\(id)"
        }
    }

    public var path: String? {
        if case .path(let path) = target { return path }
        return nil
    }

    /// Parses and checks the location, naming `field` in any refusal.
    public init(_ text: String, field: String, line: Int?) throws(ValidationIssue) {
        func issue(_ problem: String, _ fix: String) -> ValidationIssue {
            ValidationIssue(line: line, field: field, problem: problem, fix: fix)
        }
        guard text.hasPrefix("onedrive:") else { throw issue("not a OneDrive location", "write onedrive:ACCOUNT:/path") }
        let (name, remote) = try AccountLocationSyntax.split(
            text.dropFirst("onedrive:".count), field: field, line: line,
            noRemote: issue(
                "OneDrive location has no path after the account",
                "write onedrive:ACCOUNT:/path (a folder ends in /) or onedrive:ACCOUNT:id:ITEMID"))
        account = name
        if let id = try AccountLocationSyntax.id(
            remote, maxLength: Self.maxIDLength, extra: [UInt8(ascii: "!")],
            refusal: issue("a OneDrive item id has only letters, digits, -, _ and !", "write onedrive:ACCOUNT:id:ITEMID"))
        {
            target = .id(id)
            return
        }
        try Self.checkPath(remote, issue: issue)
        target = .path(remote)
    }

    static func checkPath(_ path: String, issue: (String, String) -> ValidationIssue) throws(ValidationIssue) {
        try AccountLocationSyntax.checkPath(path, maxBytes: maxPathBytes, issue: issue) { (component: Substring) throws(ValidationIssue) in
            if component.utf8.count > maxNameBytes {
                throw issue("a name in the remote path is longer than \(maxNameBytes) bytes", "shorten the name")
            }
            if let bad = component.first(where: { forbiddenCharacters.contains($0) }) {
                throw issue("remote path contains \(bad), which OneDrive does not allow in names", "rename it without \" * : < > ? \\ |")
            }
        }
    }

    /// The names from the top down (`/a/b/` → `["a", "b"]`).
    public static func components(of path: String) -> [String] {
        path.split(separator: "/").map(String.init)
    }
}
