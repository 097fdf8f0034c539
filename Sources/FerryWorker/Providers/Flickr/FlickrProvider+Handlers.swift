import FerryCore
import FerryProviders

extension FlickrProvider: ProviderHandlers {
    public var accountKind: (any AccountKind)? { FlickrAccountKind() }

    public func handler(for kind: JobKind, environment: ProviderEnvironment) -> (any JobHandler)? {
        guard kind == .fetch, let tokens = environment.tokens else { return nil }
        return FlickrPhotostreamHandler(tokens: tokens, httpClient: environment.httpClient)
    }
}
