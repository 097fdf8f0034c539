import FerryCore

/// `gdrive:ACCOUNT:/path` (a path from the top of the account's Drive; a folder ends in `/`; Drive names may hold
/// anything else, quotes and backslashes too) or `gdrive:ACCOUNT:id:FILEID` (one file or folder by its Drive id).
/// Parsing and the text form come from ``AccountItemLocation``.
public struct GoogleDriveLocation: AccountItemLocation {
    public var account: String
    public var target: Target

    public init(account: String, target: Target) {
        self.account = account
        self.target = target
    }

    public static let scheme = "gdrive"
    /// What the location names in the account: a path or a Drive file id.
    public typealias Target = AccountItemTarget
    public static let serviceName = "Google Drive"
    public static let idPlaceholder = "FILEID"
    /// Longest path taken.
    public static let maxPathBytes = 4096
    /// Longest id taken (Drive's are about 33 characters).
    public static let maxIDLength = 256
    public static let idRefusal = (
        problem: "a Drive file id has only letters, digits, - and _", fix: "write gdrive:ACCOUNT:id:FILEID with the id from the file's link"
    )
}
