import FerryCore
import FerryProviders

extension GoogleDriveProvider: AccountJobHandlers {
    public var accountKind: (any AccountKind)? { GoogleDriveAccountKind() }

    public func fetchHandler(_ environment: ProviderEnvironment, tokens: AccountTokenProvider) -> any JobHandler {
        GoogleDriveFetchHandler(tokens: tokens, environment: environment, folders: GoogleDriveFolderCache())
    }

    public func copyReader(environment: ProviderEnvironment) -> (any CopySourceReader)? {
        environment.tokens.map { GoogleDriveCopyReader(tokens: $0, environment: environment, folders: GoogleDriveFolderCache()) }
    }

    public func lister(environment: ProviderEnvironment) -> (any RemoteLister)? {
        environment.tokens.map { GoogleDriveLister(tokens: $0, environment: environment, folders: GoogleDriveFolderCache()) }
    }

    public func remover(environment: ProviderEnvironment) -> (any RemoteRemover)? {
        environment.tokens.map { GoogleDriveRemover(tokens: $0) }
    }

    public var listingExample: String? { "gdrive:ACCOUNT:/folder/" }

    public func checkListingRemote(_ remote: String) throws { _ = try GoogleDriveLocation(remote, field: "remote", line: nil) }

    public func copyWriter(environment: ProviderEnvironment) -> (any CopyWriter)? {
        environment.tokens.map { GoogleDriveCopyWriter(uploads: uploads(environment, tokens: $0)) }
    }

    public func uploadHandler(_ environment: ProviderEnvironment, tokens: AccountTokenProvider) -> any JobHandler {
        uploads(environment, tokens: tokens)
    }

    /// A file of up to one chunk (at most 5 MiB, Google's advice) goes up in one multipart request.
    private func uploads(_ environment: ProviderEnvironment, tokens: AccountTokenProvider) -> GoogleDriveUploadHandler {
        GoogleDriveUploadHandler(
            tokens: tokens, environment: environment, folders: GoogleDriveFolderCache(), chunkSize: environment.chunkSize,
            multipartLimit: Int64(min(5 * 1024 * 1024, environment.chunkSize)))
    }
}
