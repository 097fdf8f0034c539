import FerryCore
import FerryProviders

extension LocalDirectoryProvider: ProviderHandlers {
    public func handler(for kind: JobKind, environment: ProviderEnvironment) -> (any JobHandler)? {
        kind == .upload ? LocalDirectoryUploadHandler(chunkSize: environment.chunkSize) : nil
    }

    public func lister(environment: ProviderEnvironment) -> (any RemoteLister)? {
        LocalDirectoryLister(roots: environment.localRoots)
    }

    public func remover(environment: ProviderEnvironment) -> (any RemoteRemover)? {
        LocalDirectoryRemover(roots: environment.localRoots)
    }

    public var listingExample: String? { "/dir/ or file:///dir/" }

    public func checkListingRemote(_ remote: String) throws { _ = try LocalDirectoryLister.path(of: remote) }
}
