import FerryCore

/// Fetches of a Flickr user's public photostream: `flickr:USER_ID`. One listing job fans out a URL fetch per
/// photo; the account holds the API key.
public struct FlickrProvider: ProviderDescriptor {
    public init() {}

    public var name: String { "flickr" }
    public var displayName: String { "Flickr" }
    public var schemes: [String] { ["flickr"] }
    public var failureFixes: [String: String] {
        ["flickr_bad_api_key": "the Flickr API key was rejected: fix the account's key, then retry"]
    }

    /// Size suffixes served from the photo URL with the ordinary secret (`o` needs the original secret).
    public static let sizes: [String] = ["s", "q", "t", "m", "n", "w", "z", "c", "b", "h", "k"]

    public func example(for kind: JobKind) -> String? {
        kind == .fetch ? "flickr:USER_ID" : nil
    }

    /// Fetch options, each declared once (name, type, help) and read typed in ``resolve(_:)``.
    public static let size: TypedProviderOption<String> = .choice(
        "size", sizes, help: "Photo size suffix (s q t m n w z c b h k). Default: Flickr's 500 px.")
    public static let max: TypedProviderOption<Int64> = .integer(
        "max", 1...1_000_000, help: "Fetch at most this many photos, newest first.")
    public static let account: TypedProviderOption<String> = .string(
        "account", help: "The account holding the API key. Default: the only Flickr account.")

    public func options(for kind: JobKind) -> [ProviderOption] {
        [Self.size.declaration, Self.max.declaration, Self.account.declaration]
    }

    public func resolve(_ request: EndpointRequest) throws(ValidationIssue) -> ResolvedEndpoint {
        let user = String(request.remote.dropFirst("flickr:".count))
        guard Self.isValidUserID(user) else {
            throw request.issue(
                "source", "Flickr user id is empty or has characters other than letters, digits, @ _ . -",
                "write flickr:USER_ID, for example flickr:12345678@N00")
        }
        let account = request.options[Self.account]
        if let account, !EndpointSyntax.isValidAccountName(account) {
            throw EndpointSyntax.accountNameIssue(field: Self.account.name, line: request.line)
        }
        let folder = request.local.hasSuffix("/") ? request.local : request.local + "/"
        let details = FlickrFetchDetails(
            root: folder, sizeSuffix: request.options[Self.size], max: request.options[Self.max])
        return ResolvedEndpoint(
            source: "flickr:" + user, destination: folder, account: account, accountProvider: name,
            usesOnlyAccount: true, fansOut: true, typedDetails: details)
    }

    /// Flickr NSIDs (`12345678@N00`) and path aliases: letters, digits, `@ _ . -`, 1–100 characters.
    static func isValidUserID(_ id: String) -> Bool {
        guard !id.isEmpty, id.utf8.count <= 100 else { return false }
        return id.utf8.allSatisfy {
            EndpointSyntax.isAlphanumeric($0) || $0 == UInt8(ascii: "@") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-")
        }
    }
}
