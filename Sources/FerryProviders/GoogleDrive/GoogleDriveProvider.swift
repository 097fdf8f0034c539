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
    public static let sha256 = AccountItemFetchRequest.sha256Option
    public static let recursive = AccountItemFetchRequest.recursiveOption
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
        switch request.kind {
        case .upload:
            let destination = GoogleDriveLocation(account: location.account, path: try location.uploadPath(request, idNoun: "a file id"))
            let options = request.options
            let details = GoogleDriveUploadDetails(mode: options[Self.mode], ifChanged: options[Self.ifChanged] == true ? true : nil)
            return ResolvedEndpoint(
                source: request.local, destination: destination.text, account: location.account, accountProvider: name, typedDetails: details)
        case .fetch:
            let fetch = try AccountItemFetchRequest(request, pageSize: Self.pageSize)
            return location.fetchEndpoint(
                provider: name, destination: request.local,
                details: GoogleDriveFetchDetails(
                    root: fetch.root, recursive: fetch.recursive, export: request.options[Self.export], sha256: fetch.sha256,
                    requestedPageSize: fetch.requestedPageSize))
        case .copy:
            return location.copySourceEndpoint(provider: name)
        }
    }
}
