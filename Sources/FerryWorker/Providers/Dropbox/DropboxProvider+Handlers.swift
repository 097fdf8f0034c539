import FerryCore
import FerryProviders
import Foundation

extension DropboxProvider: AccountJobHandlers {
    public var accountKind: (any AccountKind)? { DropboxAccountKind() }

    public func fetchHandler(_ environment: ProviderEnvironment, tokens: AccountTokenProvider) -> any JobHandler {
        DropboxFetchHandler(tokens: tokens)
    }

    public func copyReader(environment: ProviderEnvironment) -> (any CopySourceReader)? {
        environment.tokens.map { DropboxCopyReader(tokens: $0) }
    }

    public func copyWriter(environment: ProviderEnvironment) -> (any CopyWriter)? {
        environment.tokens.map { DropboxCopyWriter(uploads: uploads(environment, tokens: $0)) }
    }

    public func lister(environment: ProviderEnvironment) -> (any RemoteLister)? {
        environment.tokens.map { DropboxLister(tokens: $0) }
    }

    public func remover(environment: ProviderEnvironment) -> (any RemoteRemover)? {
        environment.tokens.map { DropboxRemover(tokens: $0) }
    }

    public var listingExample: String? { "dropbox:ACCOUNT:/folder/" }

    public func checkListingRemote(_ remote: String) throws { _ = try DropboxLocation(remote, field: "remote", line: nil) }

    public func uploadHandler(_ environment: ProviderEnvironment, tokens: AccountTokenProvider) -> any JobHandler {
        uploads(environment, tokens: tokens)
    }

    /// Dropbox takes chunks in multiples of 4 MiB.
    private func uploads(_ environment: ProviderEnvironment, tokens: AccountTokenProvider) -> DropboxUploadHandler {
        let granularity = DropboxUploadHandler.chunkGranularity
        return DropboxUploadHandler(
            tokens: tokens, chunkSize: (environment.chunkSize + granularity - 1) / granularity * granularity,
            batching: DropboxBatchSettings(environment: environment.variables),
            parallelAppends: environment.variables["FERRY_DROPBOX_PARALLEL_APPENDS"].flatMap { Int($0) } ?? 4,
            turns: environment.turns)
    }
}
