import FerryCore

/// `onedrive:ACCOUNT:/path` (a path from the top of the account's drive; a folder ends in `/`) or
/// `onedrive:ACCOUNT:id:ITEMID` (one item by its driveItem id). Parsing and the text form come from
/// ``AccountItemLocation``; names are checked against OneDrive's rules here.
public struct OneDriveLocation: AccountItemLocation {
    public var account: String
    public var target: Target

    public init(account: String, target: Target) {
        self.account = account
        self.target = target
    }

    public static let scheme = "onedrive"
    /// What the location names in the account: a path or a driveItem id.
    public typealias Target = AccountItemTarget
    public static let serviceName = "OneDrive"
    public static let idPlaceholder = "ITEMID"
    /// Longest path taken (OneDrive's own limit is 400 characters for a whole path in business accounts).
    public static let maxPathBytes = 1024
    /// Longest name taken (OneDrive: 255 characters).
    public static let maxNameBytes = 255
    public static let maxIDLength = 256
    public static let idExtraBytes: Set<UInt8> = [UInt8(ascii: "!")]
    public static let idRefusal = (problem: "a OneDrive item id has only letters, digits, -, _ and !", fix: "write onedrive:ACCOUNT:id:ITEMID")
    /// Characters OneDrive refuses in names (`:` would also end a `root:/path:` address early).
    public static let forbiddenCharacters: Set<Character> = ["\"", "*", ":", "<", ">", "?", "\\", "|"]

    public static func checkPath(_ path: String, issue: (String, String) -> ValidationIssue) throws(ValidationIssue) {
        try AccountLocationSyntax.checkPath(path, maxBytes: maxPathBytes, issue: issue) { (component: Substring) throws(ValidationIssue) in
            if component.utf8.count > maxNameBytes {
                throw issue("a name in the remote path is longer than \(maxNameBytes) bytes", "shorten the name")
            }
            if let bad = component.first(where: { forbiddenCharacters.contains($0) }) {
                throw issue("remote path contains \(bad), which OneDrive does not allow in names", "rename it without \" * : < > ? \\ |")
            }
        }
    }
}
