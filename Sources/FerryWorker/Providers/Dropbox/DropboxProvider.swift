import FerryCore
import Foundation

/// Dropbox API v2: uploads to and fetches from `dropbox:ACCOUNT:/path` (files, folders, thumbnails), with
/// OAuth 2 refresh-token accounts.
public struct DropboxProvider: TransferProvider {
    public init() {}

    public var name: String { "dropbox" }
    public var displayName: String { "Dropbox" }
    public var schemes: [String] { ["dropbox"] }

    /// `get_thumbnail_v2` sizes (`ThumbnailSize` in the API).
    public static let thumbnailSizes: [String] = [
        "w32h32", "w64h64", "w128h128", "w256h256", "w480h320", "w640h480", "w960h640", "w1024h768", "w2048h1536",
    ]

    public func example(for kind: JobKind) -> String? {
        kind == .upload ? "dropbox:ACCOUNT:/Photos/" : "dropbox:ACCOUNT:/Photos/a.jpg"
    }

    public func options(for kind: JobKind) -> [ProviderOption] {
        switch kind {
        case .upload:
            [
                ProviderOption("mode", .choice(["add", "overwrite"]), help: "add (default: a different file at the path fails the job) or overwrite (replace it)."),
                ProviderOption("autorename", .boolean, help: "On a conflict, let Dropbox pick a free name instead of failing."),
                ProviderOption("mute", .boolean, help: "Do not notify the account's devices of the change."),
            ]
        case .fetch:
            [
                ProviderOption("sha256", .string, help: "Expected SHA-256 of a single file; a mismatch fails the job."),
                ProviderOption("recursive", .boolean, help: "Folders: include subfolders."),
                ProviderOption("thumbnail", .choice(Self.thumbnailSizes), help: "Fetch thumbnails of this size instead of the files (images only)."),
                ProviderOption("page_size", .integer(1...2000), help: "Folders: entries per list_folder page. Default: 2000."),
            ]
        }
    }

    public func resolve(_ request: EndpointRequest) throws(ValidationIssue) -> ResolvedEndpoint {
        let location = try DropboxLocation(request.remote, field: request.remoteField, line: request.line)
        let options = request.options
        switch request.kind {
        case .upload:
            let path = location.path.hasSuffix("/") ? location.path + request.localName : location.path
            let details = DropboxUploadDetails(
                mode: options.string("mode"), autorename: options.boolean("autorename"), mute: options.boolean("mute"))
            return ResolvedEndpoint(
                source: request.local, destination: DropboxLocation(account: location.account, path: path).text,
                account: location.account, accountProvider: name, typedDetails: details)
        case .fetch:
            let thumbnail = options.string("thumbnail")
            if thumbnail != nil && options.string("sha256") != nil {
                throw request.issue("sha256", "a thumbnail has no fixed checksum", "drop --sha256 or --thumbnail")
            }
            let details = DropboxFetchDetails(
                root: request.local.hasSuffix("/") ? request.local : SafePath.directory(of: request.local),
                recursive: options.boolean("recursive") == true ? true : nil,
                thumbnail: thumbnail,
                requestedPageSize: options.integer("page_size"),
                sha256: try options.string("sha256").map { text throws(ValidationIssue) in
                    try EndpointSyntax.sha256Hex(text, field: "sha256", line: request.line)
                })
            // A folder fans out into one child per file; a file is fetched by this job alone, but whether the
            // path is a folder is only known to the worker, so every Dropbox fetch gets a batch.
            return ResolvedEndpoint(
                source: location.text, destination: request.local, account: location.account, accountProvider: name,
                fansOut: true, typedDetails: details)
        }
    }

    public var accountKind: (any AccountKind)? { DropboxAccountKind() }

    public func handler(for kind: JobKind, environment: ProviderEnvironment) -> (any JobHandler)? {
        guard let tokens = environment.tokens else { return nil }
        switch kind {
        case .upload:
            // Dropbox takes chunks in multiples of 4 MiB.
            let granularity = DropboxUploadHandler.chunkGranularity
            return DropboxUploadHandler(
                tokens: tokens, chunkSize: (environment.chunkSize + granularity - 1) / granularity * granularity,
                batching: DropboxBatchSettings(environment: ProcessInfo.processInfo.environment),
                parallelAppends: ProcessInfo.processInfo.environment["FERRY_DROPBOX_PARALLEL_APPENDS"].flatMap { Int($0) } ?? 4)
        case .fetch:
            return DropboxFetchHandler(tokens: tokens)
        }
    }
}

extension DropboxLocation {
    init(account: String, path: String) {
        self.account = account
        self.path = path
    }
}
