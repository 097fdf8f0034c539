import FerryCore

/// `dropbox:ACCOUNT:/path`: an account name and an absolute path in that account's Dropbox.
public struct DropboxLocation: Sendable, Hashable {
    public var account: String
    public var path: String

    /// The canonical text form, as stored in the job.
    public var text: String { "dropbox:\(account):\(path)" }

    public init(account: String, path: String) {
        self.account = account
        self.path = path
    }

    /// Parses and checks the location, naming `field` in any refusal.
    public init(_ text: String, field: String, line: Int?) throws(ValidationIssue) {
        func issue(_ problem: String, _ fix: String) -> ValidationIssue {
            ValidationIssue(line: line, field: field, problem: problem, fix: fix)
        }
        let rest = text.dropFirst("dropbox:".count)
        guard let colon = rest.firstIndex(of: ":") else {
            throw !EndpointSyntax.isValidAccountName(String(rest))
                ? issue("Dropbox location has no account", "write dropbox:ACCOUNT:/path")
                : issue("Dropbox location has no path after the account", "write dropbox:\(rest):/path (a folder ends in /)")
        }
        account = String(rest[..<colon])
        path = String(rest[rest.index(after: colon)...])
        guard EndpointSyntax.isValidAccountName(account) else {
            throw EndpointSyntax.accountNameIssue(field: field, line: line)
        }
        guard path.hasPrefix("/") else {
            throw issue("remote path must start with /", "write an absolute path such as /Photos/")
        }
        guard path.utf8.count <= 4096 else {
            throw issue("remote path is longer than 4096 bytes", "shorten the path")
        }
        if let bad = path.unicodeScalars.first(where: { $0.value < 0x20 || $0.value == 0x7F || $0 == "\\" }) {
            throw issue("remote path contains \(bad == "\\" ? "a backslash" : "a control character")", "use / as the separator and printable names")
        }
        try AccountLocationSyntax.checkComponents(path, issue: issue) { (component: Substring) throws(ValidationIssue) in
            // Dropbox refuses names ending in a space (malformed_path): refused here, not on the worker later.
            if component.hasSuffix(" ") {
                throw issue("remote path component '\(component)' ends with a space", "remove the trailing space (Dropbox does not allow it)")
            }
        }
    }

}
