import FerryCore
import Foundation

/// Dropbox API v2: uploads to and fetches from `dropbox:ACCOUNT:/path` (files, folders, thumbnails), with
/// OAuth 2 refresh-token accounts.
public struct DropboxProvider: ProviderDescriptor {
    public init() {}

    public var name: String { "dropbox" }
    public var displayName: String { "Dropbox" }
    public var schemes: [String] { ["dropbox"] }
    /// Dropbox treats `/A.jpg` and `/a.jpg` as one file.
    public var pathsIgnoreCase: Bool { true }
    public var failureFixes: [String: String] {
        [
            "dropbox_auth": "the Dropbox token was rejected: run ferry account login ACCOUNT",
            "destination_changed": "another writer changed the Dropbox file after Ferry compared it, so it was not overwritten: look at both versions; ferry retry JOB compares again and replaces it",
        ]
    }

    /// `get_thumbnail_v2` sizes (`ThumbnailSize` in the API).
    public static let thumbnailSizes: [String] = [
        "w32h32", "w64h64", "w128h128", "w256h256", "w480h320", "w640h480", "w960h640", "w1024h768", "w2048h1536",
    ]

    public func example(for kind: JobKind) -> String? {
        kind == .upload ? "dropbox:ACCOUNT:/Photos/" : kind == .copy ? "dropbox:ACCOUNT:/Photos/ (a folder) or /Photos/a.jpg" : "dropbox:ACCOUNT:/Photos/a.jpg"
    }

    /// Upload options.
    public static let mode: TypedProviderOption<DropboxWriteMode> = .choice(
        "mode", help: "add (a different file at the path fails the job) or overwrite (replace it). Without it, an upload that compares (if_changed) replaces a changed file as a new revision of the one it saw, and one that does not adds.")
    public static let autorename: TypedProviderOption<Bool> = .boolean(
        "autorename", help: "On a conflict, let Dropbox pick a free name instead of failing.")
    public static let mute: TypedProviderOption<Bool> = .boolean("mute", help: "Do not notify the account's devices of the change.")
    public static let ifChanged: TypedProviderOption<Bool> = .boolean(
        "if_changed", help: "Skip the upload when the destination already holds the same content (size and content_hash).")

    /// Fetch options.
    public static let sha256: TypedProviderOption<String> = .string(
        "sha256", help: "Expected SHA-256 of a single file; a mismatch fails the job.")
    public static let recursive: TypedProviderOption<Bool> = .boolean("recursive", help: "Folders: include subfolders.")
    public static let thumbnail: TypedProviderOption<String> = .choice(
        "thumbnail", thumbnailSizes, help: "Fetch thumbnails of this size instead of the files (images only).")
    public static let pageSize: TypedProviderOption<Int64> = .integer(
        "page_size", 1...2000, help: "Folders: entries per list_folder page. Default: 2000.")

    public func options(for kind: JobKind) -> [ProviderOption] {
        switch kind {
        case .upload: [Self.mode.declaration, Self.autorename.declaration, Self.mute.declaration, Self.ifChanged.declaration]
        case .fetch: [Self.sha256.declaration, Self.recursive.declaration, Self.thumbnail.declaration, Self.pageSize.declaration]
        case .copy: []
        }
    }

    public func resolve(_ request: EndpointRequest) throws(ValidationIssue) -> ResolvedEndpoint {
        let location = try DropboxLocation(request.remote, field: request.remoteField, line: request.line)
        let options = request.options
        switch request.kind {
        case .copy:
            // A folder is written with a trailing / and copied whole, subfolders included; a path without one is
            // a file (a folder there fails the job, naming the fix), so the destination is known at enqueue.
            let folder = location.path.hasSuffix("/")
            return ResolvedEndpoint(
                source: location.text, destination: "", account: location.account, accountProvider: name, fansOut: folder,
                typedDetails: CopySourceDetails(provider: name, account: location.account, folder: folder ? true : nil))
        case .upload:
            let path = location.path.hasSuffix("/") ? location.path + request.localName : location.path
            let details = DropboxUploadDetails(
                mode: options[Self.mode], autorename: options[Self.autorename], mute: options[Self.mute],
                ifChanged: options[Self.ifChanged] == true ? true : nil)
            return ResolvedEndpoint(
                source: request.local, destination: DropboxLocation(account: location.account, path: path).text,
                account: location.account, accountProvider: name, typedDetails: details)
        case .fetch:
            let thumbnail = options[Self.thumbnail]
            if thumbnail != nil && options.contains(Self.sha256) {
                throw request.issue(Self.sha256.name, "a thumbnail has no fixed checksum", "drop --sha256 or --thumbnail")
            }
            let details = DropboxFetchDetails(
                root: request.local.hasSuffix("/") ? request.local : SafePath.directory(of: request.local),
                recursive: options[Self.recursive] == true ? true : nil,
                thumbnail: thumbnail,
                requestedPageSize: options[Self.pageSize],
                sha256: try options[Self.sha256].map { text throws(ValidationIssue) in
                    try EndpointSyntax.sha256Hex(text, field: Self.sha256.name, line: request.line)
                })
            // A folder fans out into one child per file; a file is fetched by this job alone, but whether the
            // path is a folder is only known to the worker, so every Dropbox fetch gets a batch.
            return ResolvedEndpoint(
                source: location.text, destination: request.local, account: location.account, accountProvider: name,
                fansOut: true, typedDetails: details)
        }
    }
}
