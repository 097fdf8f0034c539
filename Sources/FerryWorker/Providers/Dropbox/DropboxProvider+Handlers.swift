import FerryCore
import FerryProviders
import Foundation

extension DropboxProvider: ProviderHandlers {
    public var accountKind: (any AccountKind)? { DropboxAccountKind() }

    public func handler(for kind: JobKind, environment: ProviderEnvironment) -> (any JobHandler)? {
        guard let tokens = environment.tokens else { return nil }
        // Dropbox takes chunks in multiples of 4 MiB.
        let granularity = DropboxUploadHandler.chunkGranularity
        func uploads() -> DropboxUploadHandler {
            DropboxUploadHandler(
                tokens: tokens, chunkSize: (environment.chunkSize + granularity - 1) / granularity * granularity,
                batching: DropboxBatchSettings(environment: ProcessInfo.processInfo.environment),
                parallelAppends: ProcessInfo.processInfo.environment["FERRY_DROPBOX_PARALLEL_APPENDS"].flatMap { Int($0) } ?? 4)
        }
        switch kind {
        case .upload:
            return uploads()
        case .fetch:
            return DropboxFetchHandler(tokens: tokens)
        case .copy:
            return CopyHandler(sources: CopySources(tokens: tokens, httpClient: environment.httpClient), writer: DropboxCopyWriter(uploads: uploads()))
        }
    }
}
