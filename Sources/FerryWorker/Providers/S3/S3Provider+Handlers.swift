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
        case .copy:
            return CopyHandler(sources: CopySources(tokens: tokens, httpClient: environment.httpClient), writer: S3CopyWriter(uploads: uploads))
        }
    }
}
