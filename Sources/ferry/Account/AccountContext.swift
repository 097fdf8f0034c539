import AsyncHTTPClient
import FerryStore
import FerryWorker
import Foundation
import Logging

/// What the account commands share: the store, the secret box and an HTTP client, closed in one place.
struct AccountContext {
    let store: FerryStore
    let box: SecretBox
    let http: HTTPClient
    let logger: Logger

    static func with<T>(_ connection: ConnectionOptions, _ body: (AccountContext) async throws -> T) async throws -> T {
        // The key first: without it nothing can be stored or read, so fail before touching anything.
        let box = SecretBox(key: try SecretKey.fromEnvironment())
        let store = try await connection.makeCurrentStore(poolSize: 2)
        defer { store.client.close() }
        // Before anything is sealed or asked of a provider: a key other than the one the stored secrets are sealed
        // with would seal secrets that no worker opens (its jobs stuck, the next worker start refused).
        try await store.accounts.checkSecretKey(box)
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        let context = AccountContext(store: store, box: box, http: http, logger: Logger(label: "ferry.account"))
        do {
            let value = try await body(context)
            try? await http.shutdown()
            return value
        } catch {
            try? await http.shutdown()
            throw error
        }
    }

    var requester: String { CommandTarget.requester }

    func tokens() -> AccountTokenProvider {
        AccountTokenProvider(store: store, box: box, httpClient: http, actor: requester, logger: logger, registry: .standard)
    }
}
