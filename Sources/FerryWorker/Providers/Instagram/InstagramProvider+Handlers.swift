import FerryCore
import FerryProviders

extension InstagramProvider: ProviderHandlers {
    public var accountKind: (any AccountKind)? { InstagramAccountKind() }

    public func handler(for kind: JobKind, environment: ProviderEnvironment) -> (any JobHandler)? {
        guard kind == .fetch, let tokens = environment.tokens else { return nil }
        return InstagramFeedHandler(tokens: tokens, httpClient: environment.httpClient)
    }
}
