import FerryCore

/// The text form the locations of providers that address files in an account share: `SCHEME:ACCOUNT:/path` (a
/// path from the top of the account's storage; a folder ends in `/`) or `SCHEME:ACCOUNT:id:ID` (one item by id).
/// Each provider names its scheme and its own bounds and refusals; this checks what they have in common.
enum AccountLocationSyntax {
    /// The account (checked) and what follows it, from `rest` (the text after the scheme); `noRemote` when no
    /// colon ends the account.
    static func split(
        _ rest: Substring, field: String, line: Int?, noRemote: ValidationIssue
    ) throws(ValidationIssue) -> (account: String, remote: String) {
        guard let colon = rest.firstIndex(of: ":") else { throw noRemote }
        let account = String(rest[..<colon])
        guard EndpointSyntax.isValidAccountName(account) else { throw EndpointSyntax.accountNameIssue(field: field, line: line) }
        return (account, String(rest[rest.index(after: colon)...]))
    }

    /// The id `remote` names (`id:ID`), or `nil` when it names a path. An id is 1 to `maxLength` bytes of letters,
    /// digits, `-`, `_` and the `extra` bytes; any other is `refusal`.
    static func id(_ remote: String, maxLength: Int, extra: Set<UInt8> = [], refusal: ValidationIssue) throws(ValidationIssue) -> String? {
        guard remote.hasPrefix("id:") else { return nil }
        let id = String(remote.dropFirst(3))
        guard !id.isEmpty, id.utf8.count <= maxLength,
            id.utf8.allSatisfy({ EndpointSyntax.isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || extra.contains($0) })
        else { throw refusal }
        return id
    }

    /// Checks an absolute remote path: at most `maxBytes`, no control character, no empty, `.` or `..` component;
    /// `name` checks each name further (the provider's own rules).
    static func checkPath(
        _ path: String, maxBytes: Int, issue: (String, String) -> ValidationIssue,
        name: (Substring) throws(ValidationIssue) -> Void = { _ in }
    ) throws(ValidationIssue) {
        guard path.hasPrefix("/") else { throw issue("remote path must start with /", "write an absolute path such as /Backup/") }
        guard path.utf8.count <= maxBytes else { throw issue("remote path is longer than \(maxBytes) bytes", "shorten the path") }
        if path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw issue("remote path contains a control character", "use printable names")
        }
        try checkComponents(path, issue: issue, name: name)
    }

    /// Checks the names of an absolute path: none empty (but the last: a folder ends in `/`), none `.` or `..`;
    /// `name` checks each further.
    static func checkComponents(
        _ path: String, issue: (String, String) -> ValidationIssue, name: (Substring) throws(ValidationIssue) -> Void = { _ in }
    ) throws(ValidationIssue) {
        let components = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (index, component) in components.enumerated() {
            if component.isEmpty && index < components.count - 1 {
                throw issue("remote path has an empty component (//)", "remove the doubled slash")
            }
            if component == "." || component == ".." {
                throw issue("remote path contains \(component)", "write the path without . or .. components")
            }
            try name(component)
        }
    }
}
