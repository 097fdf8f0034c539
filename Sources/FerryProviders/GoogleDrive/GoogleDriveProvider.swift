import FerryCore

/// Google Drive API v3: uploads to and fetches from `gdrive:ACCOUNT:/path` (files, folders, Google Docs items
/// exported) and `gdrive:ACCOUNT:id:FILEID`, with OAuth 2 refresh-token accounts.
public struct GoogleDriveProvider: ProviderDescriptor {
    public init() {}

    public var name: String { "gdrive" }
    public var displayName: String { "Google Drive" }
    public var schemes: [String] { ["gdrive"] }

    public func example(for kind: JobKind) -> String? {
        switch kind {
        case .upload: "gdrive:ACCOUNT:/Backup/"
        case .fetch: "gdrive:ACCOUNT:/Photos/a.jpg or gdrive:ACCOUNT:id:FILEID"
        case .copy: "gdrive:ACCOUNT:/Photos/"
        }
    }

    /// Upload options.
    public static let mode: TypedProviderOption<GoogleDriveWriteMode> = .choice(
        "mode", help: "add (a file of the same name with other content fails the job) or overwrite (store a new revision of it, same file id). Without it, an upload that compares (if_changed) stores a changed file as a new revision, and one that does not adds.")
    public static let ifChanged: TypedProviderOption<Bool> = .boolean(
        "if_changed", help: "Skip the upload when the file there holds the same content (size and MD5).")

    /// Fetch options.
    public static let export: TypedProviderOption<GoogleDriveExportFormat> = .choice(
        "export", help: "Google Docs, Sheets and Slides: the format to export them to (pdf, docx, xlsx, pptx, odt, ods, odp, txt, csv, tsv, html, rtf, epub, md). Without it they are refused (one item) or skipped (in a folder).")
    public static let sha256: TypedProviderOption<String> = .string("sha256", help: "Expected SHA-256 of a single file; a mismatch fails the job.")
    public static let recursive: TypedProviderOption<Bool> = .boolean("recursive", help: "Folders: include subfolders.")
    public static let pageSize: TypedProviderOption<Int64> = .integer(
        "page_size", 1...1000, help: "Folders: items per files.list page. Default: 1000.")

    public func options(for kind: JobKind) -> [ProviderOption] {
        switch kind {
        case .upload: [Self.mode.declaration, Self.ifChanged.declaration]
        case .fetch: [Self.export.declaration, Self.sha256.declaration, Self.recursive.declaration, Self.pageSize.declaration]
        case .copy: []
        }
    }

    public func resolve(_ request: EndpointRequest) throws(ValidationIssue) -> ResolvedEndpoint {
        let location = try GoogleDriveLocation(request.remote, field: request.remoteField, line: request.line)
        let options = request.options
        switch request.kind {
        case .upload:
            guard let path = location.path else {
                throw request.issue(request.remoteField, "an upload names a path, not a file id", "write gdrive:\(location.account):/folder/ (a folder ends in /)")
            }
            let destination = path.hasSuffix("/") ? path + request.localName : path
            let details = GoogleDriveUploadDetails(mode: options[Self.mode], ifChanged: options[Self.ifChanged] == true ? true : nil)
            return ResolvedEndpoint(
                source: request.local, destination: GoogleDriveLocation(account: location.account, path: destination).text,
                account: location.account, accountProvider: name, typedDetails: details)
        case .fetch:
            let details = GoogleDriveFetchDetails(
                root: request.local.hasSuffix("/") ? request.local : SafePath.directory(of: request.local),
                recursive: options[Self.recursive] == true ? true : nil, export: options[Self.export],
                sha256: try options[Self.sha256].map { text throws(ValidationIssue) in
                    try EndpointSyntax.sha256Hex(text, field: Self.sha256.name, line: request.line)
                },
                requestedPageSize: options[Self.pageSize])
            // Whether the item is a folder is only known to the worker, so every fetch gets a batch for its children.
            return ResolvedEndpoint(
                source: location.text, destination: request.local, account: location.account, accountProvider: name, fansOut: true,
                typedDetails: details)
        case .copy:
            // As a copy source: a folder (path ending in /) is listed whole, subfolders included; a file by itself.
            let folder = location.path?.hasSuffix("/") == true
            return ResolvedEndpoint(
                source: location.text, destination: "", account: location.account, accountProvider: name, fansOut: folder,
                typedDetails: CopySourceDetails(provider: name, account: location.account, folder: folder ? true : nil))
        }
    }
}
