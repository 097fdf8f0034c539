import FerryCore
import FerryProviders

extension GoogleDriveProvider: ProviderHandlers {
    public var accountKind: (any AccountKind)? { GoogleDriveAccountKind() }

    public func handler(for kind: JobKind, environment: ProviderEnvironment) -> (any JobHandler)? {
        guard let tokens = environment.tokens else { return nil }
        // One folder cache for the process's uploads and fetches.
        let folders = GoogleDriveFolderCache()
        switch kind {
        case .upload:
            // A file of up to one chunk (at most 5 MiB, Google's advice) goes up in one multipart request.
            return GoogleDriveUploadHandler(
                tokens: tokens, environment: environment, folders: folders, chunkSize: environment.chunkSize,
                multipartLimit: Int64(min(5 * 1024 * 1024, environment.chunkSize)))
        case .fetch:
            return GoogleDriveFetchHandler(tokens: tokens, environment: environment, folders: folders)
        case .copy:
            // Copies come with the capability seam.
            return nil
        }
    }
}
