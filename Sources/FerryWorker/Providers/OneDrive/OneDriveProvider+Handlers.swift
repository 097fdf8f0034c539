import FerryCore
import FerryOneDrive
import FerryProviders

extension OneDriveProvider: AccountJobHandlers {
    public var accountKind: (any AccountKind)? { OneDriveAccountKind() }

    public func fetchHandler(_ environment: ProviderEnvironment, tokens: AccountTokenProvider) -> any JobHandler {
        OneDriveFetchHandler(tokens: tokens)
    }

    public func copyReader(environment: ProviderEnvironment) -> (any CopySourceReader)? {
        environment.tokens.map { OneDriveCopyReader(tokens: $0) }
    }

    public func lister(environment: ProviderEnvironment) -> (any RemoteLister)? {
        environment.tokens.map { OneDriveLister(tokens: $0) }
    }

    public func remover(environment: ProviderEnvironment) -> (any RemoteRemover)? {
        environment.tokens.map { OneDriveRemover(tokens: $0) }
    }

    public var listingExample: String? { "onedrive:ACCOUNT:/folder/" }

    public func checkListingRemote(_ remote: String) throws { _ = try OneDriveLocation(remote, field: "remote", line: nil) }

    public func copyWriter(environment: ProviderEnvironment) -> (any CopyWriter)? {
        environment.tokens.map { OneDriveCopyWriter(uploads: uploads(environment, tokens: $0)) }
    }

    public func uploadHandler(_ environment: ProviderEnvironment, tokens: AccountTokenProvider) -> any JobHandler {
        uploads(environment, tokens: tokens)
    }

    /// Ranges of the worker's chunk size (rounded to 320 KiB); files up to one range (at most 4 MiB) in one request.
    private func uploads(_ environment: ProviderEnvironment, tokens: AccountTokenProvider) -> OneDriveUploadHandler {
        OneDriveUploadHandler(
            tokens: tokens, environment: environment, rangeSize: environment.chunkSize,
            simpleLimit: min(OneDriveClient.simpleUploadLimit, Int64(environment.chunkSize)))
    }
}
