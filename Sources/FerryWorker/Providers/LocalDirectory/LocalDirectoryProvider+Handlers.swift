import FerryCore
import FerryProviders

extension LocalDirectoryProvider: ProviderHandlers {
    public func handler(for kind: JobKind, environment: ProviderEnvironment) -> (any JobHandler)? {
        kind == .upload ? LocalDirectoryUploadHandler(chunkSize: environment.chunkSize) : nil
    }
}
