import FerryCore
import FerryProviders
import FerryS3

extension S3Provider: ProviderHandlers {
    public var accountKind: (any AccountKind)? { S3AccountKind() }

    public func handler(for kind: JobKind, environment: ProviderEnvironment) -> (any JobHandler)? {
        guard let tokens = environment.tokens else { return nil }
        let access = S3AccountAccess(tokens: tokens, httpClient: environment.httpClient)
        let uploads = S3UploadHandler(access: access, partSize: max(S3PartPlan.minPartSize, Int64(environment.chunkSize)))
        switch kind {
        case .upload: return uploads
        case .fetch: return S3FetchHandler(access: access)
        case .copy: return nil
        }
    }

    public func copyReader(environment: ProviderEnvironment) -> (any CopySourceReader)? {
        environment.tokens.map { S3CopyReader(access: S3AccountAccess(tokens: $0, httpClient: environment.httpClient)) }
    }

    public func lister(environment: ProviderEnvironment) -> (any RemoteLister)? {
        environment.tokens.map { S3Lister(access: S3AccountAccess(tokens: $0, httpClient: environment.httpClient)) }
    }

    public func remover(environment: ProviderEnvironment) -> (any RemoteRemover)? {
        environment.tokens.map { S3Remover(access: S3AccountAccess(tokens: $0, httpClient: environment.httpClient)) }
    }

    public var listingExample: String? { "s3:ACCOUNT:bucket/prefix/" }

    public func checkListingRemote(_ remote: String) throws { _ = try S3Lister.prefix(remote) }

    public func copyWriter(environment: ProviderEnvironment) -> (any CopyWriter)? {
        guard let tokens = environment.tokens else { return nil }
        let access = S3AccountAccess(tokens: tokens, httpClient: environment.httpClient)
        return S3CopyWriter(uploads: S3UploadHandler(access: access, partSize: max(S3PartPlan.minPartSize, Int64(environment.chunkSize))))
    }
}
