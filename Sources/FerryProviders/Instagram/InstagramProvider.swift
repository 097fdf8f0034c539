import FerryCore

/// Fetches of an Instagram account's own feed through the Instagram API with Instagram Login:
/// `ferry enqueue fetch instagram:ACCOUNT --to DIR/`. One listing job fans out a fetch per image, video and
/// album child; the account holds the long-lived token.
public struct InstagramProvider: ProviderDescriptor {
    public init() {}

    public var name: String { "instagram" }
    public var displayName: String { "Instagram" }
    public var schemes: [String] { ["instagram"] }
    public var failureFixes: [String: String] {
        [
            "instagram_token": "the Instagram token expired or was revoked: make a new long-lived token and run ferry account login ACCOUNT --token-file FILE (- reads stdin); the held jobs continue by themselves",
            "instagram_media_gone": "the post was deleted or hidden on Instagram",
        ]
    }

    public func example(for kind: JobKind) -> String? {
        kind == .fetch ? "instagram:ACCOUNT" : nil
    }

    /// Fetch options, each declared once (name, type, help) and read typed in ``resolve(_:)``.
    public static let max: TypedProviderOption<Int64> = .integer(
        "max", 1...1_000_000, help: "Fetch at most this many posts, newest first.")
    public static let thumbnails: TypedProviderOption<Bool> = .boolean(
        "thumbnails", help: "Also fetch each video's cover image (ID.thumb.jpg). Default: false.")

    public func options(for kind: JobKind) -> [ProviderOption] {
        [Self.max.declaration, Self.thumbnails.declaration]
    }

    public func resolve(_ request: EndpointRequest) throws(ValidationIssue) -> ResolvedEndpoint {
        let account = String(request.remote.dropFirst("instagram:".count))
        guard EndpointSyntax.isValidAccountName(account) else {
            throw request.issue("source", "the Instagram account name is empty or not a valid account name", "write instagram:ACCOUNT, the name given to ferry account add")
        }
        let folder = request.local.hasSuffix("/") ? request.local : request.local + "/"
        let details = InstagramFetchDetails(root: folder, max: request.options[Self.max], thumbnails: request.options[Self.thumbnails])
        return ResolvedEndpoint(
            source: "instagram:" + account, destination: folder, account: account, accountProvider: name,
            usesOnlyAccount: true, fansOut: true, typedDetails: details)
    }
}
