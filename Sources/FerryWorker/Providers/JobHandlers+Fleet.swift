import AsyncHTTPClient
import FerryProviders
import FerryStore
import Foundation
import Logging

extension JobHandlers {
    /// The handlers `ferry worker` runs: every provider in `providers` this worker can run; with the secret key, the
    /// account-based ones too (their tokens refreshed through the store); remote folders created once through the
    /// store; local folders listed only inside the worker's roots. In-process tests build their workers with it too,
    /// so they run the binary's wiring; `variables` are the environment providers read their tuning knobs from (the
    /// process's by default, a test's own per worker).
    public static func fleet(
        _ providers: ProviderRegistry, store: FerryStore, box: SecretBox?, http: HTTPClient, workerName: String, chunkBytes: Int,
        roots: LocalRoots, allowsDeletes: Bool = true, variables: [String: String] = ProcessInfo.processInfo.environment, logger: Logger
    ) -> JobHandlers {
        // One set of fleet shares per process: requests (the token provider's pacer) and bytes (the worker) alike.
        let shares = AccountShares(store: store, worker: workerName)
        let tokens = box.map {
            AccountTokenProvider(
                store: store, box: $0, httpClient: http, actor: "worker \(workerName)", logger: logger, registry: providers, shares: shares)
        }
        let folders = RemoteFolderLedger(store: store, owner: "\(workerName)/\(UUID().uuidString.prefix(8))")
        var environment = ProviderEnvironment(httpClient: http, tokens: tokens, chunkSize: chunkBytes, folders: folders, localRoots: roots)
        environment.allowsDeletes = allowsDeletes
        environment.variables = ProviderVariables(variables)
        environment.shares = shares
        environment.turns = AccountTurns(store: store)
        return JobHandlers(registry: providers, environment: environment)
    }
}
