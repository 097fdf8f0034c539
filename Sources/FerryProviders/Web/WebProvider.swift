import FerryCore

/// Fetches of `http(s)://` URLs to local files.
public struct WebProvider: ProviderDescriptor {
    public init() {}

    public var name: String { "web" }
    public var displayName: String { "URL" }
    public var schemes: [String] { ["http", "https"] }

    public func example(for kind: JobKind) -> String? {
        kind == .fetch ? "https://example.com/photo.jpg" : nil
    }

    /// The fetch option, declared once (name, type, help) and read typed in ``resolve(_:)``.
    public static let sha256: TypedProviderOption<String> = .string(
        "sha256", help: "Expected SHA-256 of the file (64 hex digits); a mismatch fails the job.")

    public func options(for kind: JobKind) -> [ProviderOption] { [Self.sha256.declaration] }

    public func resolve(_ request: EndpointRequest) throws(ValidationIssue) -> ResolvedEndpoint {
        let url = try WebURL.validate(request.remote, field: "source", line: request.line)
        var destination = request.local
        if destination.hasSuffix("/") {
            guard let name = SafePath.fileName(fromURL: url) else {
                throw request.issue("to", "the URL's path has no usable file name to keep", "give --to a full file path instead of a folder")
            }
            destination += name
        }
        let details = WebFetchDetails(
            root: SafePath.directory(of: destination),
            sha256: try request.options[Self.sha256].map { text throws(ValidationIssue) in
                try EndpointSyntax.sha256Hex(text, field: Self.sha256.name, line: request.line)
            })
        return ResolvedEndpoint(source: url, destination: destination, typedDetails: details)
    }
}
