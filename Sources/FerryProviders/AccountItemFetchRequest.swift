import FerryCore

/// What a fetch from an account's items (an ``AccountItemLocation``) takes from its request, whatever the provider:
/// where the files go, whether a folder's subfolders come too, the expected SHA-256 of a single file and the page
/// size of folder listings.
public struct AccountItemFetchRequest: Sendable {
    /// The option naming the expected SHA-256 of a single file.
    public static let sha256Option: TypedProviderOption<String> = .string(
        "sha256", help: "Expected SHA-256 of a single file; a mismatch fails the job.")
    /// The option including a folder's subfolders.
    public static let recursiveOption: TypedProviderOption<Bool> = .boolean("recursive", help: "Folders: include subfolders.")

    /// The local folder the files go to (the request's, or the folder of the file it names).
    public var root: String
    /// `true` with the recursive option, `nil` without (kept out of the job's details).
    public var recursive: Bool?
    /// The expected SHA-256, checked as hex.
    public var sha256: String?
    /// The page size asked for, unchecked against the service's bounds (the details clamp it).
    public var requestedPageSize: Int64?

    /// Reads the request's options; `pageSize` is the provider's option for it (its help names its listing).
    public init(_ request: EndpointRequest, pageSize: TypedProviderOption<Int64>) throws(ValidationIssue) {
        let options = request.options
        root = request.local.hasSuffix("/") ? request.local : SafePath.directory(of: request.local)
        recursive = options[Self.recursiveOption] == true ? true : nil
        sha256 = try options[Self.sha256Option].map { text throws(ValidationIssue) in
            try EndpointSyntax.sha256Hex(text, field: Self.sha256Option.name, line: request.line)
        }
        requestedPageSize = options[pageSize]
    }
}
