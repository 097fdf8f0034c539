import FerryCore
import FerryProviders

/// A provider whose uploads and fetches each run with the account's tokens, and whose copies run through the copy
/// capabilities (no `copy` handler): its job handlers follow from the two it names.
public protocol AccountJobHandlers: ProviderHandlers {
    /// The handler of upload jobs.
    func uploadHandler(_ environment: ProviderEnvironment, tokens: AccountTokenProvider) -> any JobHandler
    /// The handler of fetch jobs.
    func fetchHandler(_ environment: ProviderEnvironment, tokens: AccountTokenProvider) -> any JobHandler
}

extension AccountJobHandlers {
    /// Upload and fetch handlers when this process can open accounts (it has the secret key); none for copies.
    public func handler(for kind: JobKind, environment: ProviderEnvironment) -> (any JobHandler)? {
        guard let tokens = environment.tokens else { return nil }
        switch kind {
        case .upload: return uploadHandler(environment, tokens: tokens)
        case .fetch: return fetchHandler(environment, tokens: tokens)
        case .copy: return nil
        }
    }
}
