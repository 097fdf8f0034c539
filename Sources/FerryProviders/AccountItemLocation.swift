import FerryCore

/// A location of a provider that addresses items in an account (see ``AccountLocationSyntax``):
/// `SCHEME:ACCOUNT:/path` or `SCHEME:ACCOUNT:id:ID`. A conforming type names its scheme, bounds and refusals; the
/// text form, the parsing and the checks common to all are here once.
public protocol AccountItemLocation: Sendable, Hashable {
    /// The scheme before the first colon.
    static var scheme: String { get }
    /// The service's name in refusals.
    static var serviceName: String { get }
    /// How an id is written in fixes (`ITEMID`).
    static var idPlaceholder: String { get }
    /// Longest path taken, in bytes.
    static var maxPathBytes: Int { get }
    /// Longest id taken, in bytes.
    static var maxIDLength: Int { get }
    /// Bytes an id may hold besides letters, digits, `-` and `_`. Default: none.
    static var idExtraBytes: Set<UInt8> { get }
    /// The refusal of an id with other bytes: its problem and fix.
    static var idRefusal: (problem: String, fix: String) { get }
    /// The account's name.
    var account: String { get }
    /// What the location names in the account.
    var target: AccountItemTarget { get }
    /// A location from its parts (not checked).
    init(account: String, target: AccountItemTarget)
    /// Checks a remote path further than ``AccountLocationSyntax`` does (the service's own rules for names).
    /// Default: its common checks only, with ``maxPathBytes``.
    static func checkPath(_ path: String, issue: (String, String) -> ValidationIssue) throws(ValidationIssue)
}

extension AccountItemLocation {
    public static var idExtraBytes: Set<UInt8> { [] }

    public static func checkPath(_ path: String, issue: (String, String) -> ValidationIssue) throws(ValidationIssue) {
        try AccountLocationSyntax.checkPath(path, maxBytes: maxPathBytes, issue: issue)
    }

    /// A location naming `path`.
    public init(account: String, path: String) {
        self.init(account: account, target: .path(path))
    }

    /// Parses and checks the location, naming `field` in any refusal.
    public init(_ text: String, field: String, line: Int?) throws(ValidationIssue) {
        func issue(_ problem: String, _ fix: String) -> ValidationIssue {
            ValidationIssue(line: line, field: field, problem: problem, fix: fix)
        }
        let forms = "\(Self.scheme):ACCOUNT:/path (a folder ends in /) or \(Self.scheme):ACCOUNT:id:\(Self.idPlaceholder)"
        guard text.hasPrefix(Self.scheme + ":") else { throw issue("not a \(Self.serviceName) location", "write \(forms)") }
        let (account, remote) = try AccountLocationSyntax.split(
            text.dropFirst(Self.scheme.count + 1), field: field, line: line,
            noRemote: issue("\(Self.serviceName) location has no path after the account", "write \(forms)"))
        if let id = try AccountLocationSyntax.id(
            remote, maxLength: Self.maxIDLength, extra: Self.idExtraBytes, refusal: issue(Self.idRefusal.problem, Self.idRefusal.fix))
        {
            self.init(account: account, target: .id(id))
            return
        }
        try Self.checkPath(remote, issue: issue)
        self.init(account: account, target: .path(remote))
    }

    /// The canonical text form, as stored in the job.
    public var text: String {
        switch target {
        case .path(let path): "\(Self.scheme):\(account):\(path)"
        case .id(let id): "\(Self.scheme):\(account):id:\(id)"
        }
    }

    /// The path, when the location names one.
    public var path: String? {
        if case .path(let path) = target { return path }
        return nil
    }

    /// The names from the top down (`/a/b/` → `["a", "b"]`).
    public static func components(of path: String) -> [String] {
        path.split(separator: "/").map(String.init)
    }
}
