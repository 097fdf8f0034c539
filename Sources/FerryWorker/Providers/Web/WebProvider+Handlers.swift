import FerryCore
import FerryProviders

extension WebProvider: ProviderHandlers {
    public func handler(for kind: JobKind, environment: ProviderEnvironment) -> (any JobHandler)? {
        kind == .fetch ? HTTPFetchHandler(httpClient: environment.httpClient) : nil
    }
}
