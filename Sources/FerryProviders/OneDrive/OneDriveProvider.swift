import FerryCore

/// OneDrive (Microsoft Graph v1.0): uploads to and fetches from `onedrive:ACCOUNT:/path` (files and folders) and
/// `onedrive:ACCOUNT:id:ITEMID`, copies both ways through the copy capabilities, with Microsoft identity platform
/// OAuth 2.0 accounts (refresh tokens, `offline_access`).
public struct OneDriveProvider: ProviderDescriptor {
    public init() {}

    public var name: String { "onedrive" }
    public var displayName: String { "OneDrive" }
    public var schemes: [String] { ["onedrive"] }
    /// OneDrive compares names without case.
    public var pathsIgnoreCase: Bool { true }

    public var failureFixes: [String: String] {
        [
            "onedrive_auth": "Microsoft refused the access token after a refresh: run ferry account login ACCOUNT",
            "onedrive_access_denied": "OneDrive refused the request: check the app registration's permissions (Files.ReadWrite) and the item's sharing",
            "onedrive_bad_request": "OneDrive refused the request as malformed: check the path (names OneDrive does not allow) and the options",
        ]
    }

    public func example(for kind: JobKind) -> String? {
        switch kind {
        case .upload: "onedrive:ACCOUNT:/Backup/"
        case .fetch: "onedrive:ACCOUNT:/Photos/a.jpg or onedrive:ACCOUNT:/Photos/"
        case .copy: "onedrive:ACCOUNT:/Photos/"
        }
    }

    public static let mode: TypedProviderOption<OneDriveWriteMode> = .choice(
        "mode", help: "add (a file of the same name with other content fails the job), overwrite (replace it: a new version of the same item) or rename (store the upload beside it under a new name). Without it, an upload that compares (if_changed) replaces a changed file, and one that does not adds.")
    public static let ifChanged: TypedProviderOption<Bool> = .boolean(
        "if_changed", help: "Skip the upload when the file there holds the same content (size and QuickXorHash).")
    public static let sha256 = AccountItemFetchRequest.sha256Option
    public static let recursive = AccountItemFetchRequest.recursiveOption
    public static let pageSize: TypedProviderOption<Int64> = .integer(
        "page_size", 1...1000, help: "Folders: children per page ($top). Default: 1000.")

    public func options(for kind: JobKind) -> [ProviderOption] {
        switch kind {
        case .upload: [Self.mode.declaration, Self.ifChanged.declaration]
        case .fetch: [Self.sha256.declaration, Self.recursive.declaration, Self.pageSize.declaration]
        case .copy: []
        }
    }

    public func resolve(_ request: EndpointRequest) throws(ValidationIssue) -> ResolvedEndpoint {
        let location = try OneDriveLocation(request.remote, field: request.remoteField, line: request.line)
        switch request.kind {
        case .upload:
            // The local name becomes a remote name: it is checked as one.
            let destination = try OneDriveLocation(
                OneDriveLocation(account: location.account, path: try location.uploadPath(request, idNoun: "an item id")).text,
                field: request.remoteField, line: request.line)
            let options = request.options
            let details = OneDriveUploadDetails(mode: options[Self.mode], ifChanged: options[Self.ifChanged] == true ? true : nil)
            return ResolvedEndpoint(
                source: request.local, destination: destination.text, account: location.account, accountProvider: name, typedDetails: details)
        case .fetch:
            let fetch = try AccountItemFetchRequest(request, pageSize: Self.pageSize)
            let details = OneDriveFetchDetails(
                root: fetch.root, recursive: fetch.recursive, sha256: fetch.sha256, requestedPageSize: fetch.requestedPageSize)
            return location.fetchEndpoint(provider: name, destination: request.local, details: details)
        case .copy:
            return location.copySourceEndpoint(provider: name)
        }
    }
}
