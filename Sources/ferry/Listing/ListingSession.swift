import AsyncHTTPClient
import FerryCore
import FerryHTTP
import FerryProviders
import FerryStore
import FerryWorker
import Foundation
import Logging

/// What the listing commands share: each remote's ``RemoteListing`` in a ``ProviderEnvironment`` built as a worker
/// builds it, with the HTTP client (and the store, when an account is listed) closed in one place.
///
/// Accounts are opened with the secret key (FERRY_SECRET_KEY or FERRY_SECRET_KEY_FILE) and the database, as the
/// worker opens them; a listing of local folders needs neither. Local folders are any the user can read (the CLI
/// runs as them), not a worker's roots.
struct ListingSession {
    let listings: [RemoteListing]
    let logger: Logger

    @discardableResult
    static func with<T>(_ remotes: [String], connection: ConnectionOptions, _ body: (ListingSession) async throws -> T) async throws -> T {
        let registry = ProviderRegistry.standard
        let resolved = remotes.map(Self.absolute)
        // Every remote parses before the key or the database is asked for.
        let needsAccounts = try resolved.contains { try RemoteListing.provider(of: $0, registry: registry).accountKind != nil }
        LoggingBootstrap.bootstrap(level: connection.logLevel)
        let logger = Logger(label: "ferry.listing")
        // The key first: without it no account opens, so fail before touching the database.
        let box = needsAccounts ? SecretBox(key: try SecretKey.fromEnvironment()) : nil
        let store = needsAccounts ? try await connection.makeCurrentStore(poolSize: 2) : nil
        defer { store?.client.close() }
        // Created last, after everything that can fail early: an HTTP client must be shut down, never dropped.
        let http = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: HTTPTransferTimeouts.configuration())
        do {
            var tokens: AccountTokenProvider?
            if let store, let box {
                tokens = AccountTokenProvider(store: store, box: box, httpClient: http, actor: CommandTarget.requester, logger: logger, registry: registry)
            }
            let environment = ProviderEnvironment(httpClient: http, tokens: tokens, chunkSize: 8 << 20, localRoots: .unconfined)
            let listings = try resolved.map { try RemoteListing.open($0, registry: registry, environment: environment) }
            let value = try await body(ListingSession(listings: listings, logger: logger))
            try? await http.shutdown()
            return value
        } catch {
            try? await http.shutdown()
            throw error
        }
    }

    /// A local path relative to the working folder made absolute; anything with a scheme as written.
    static func absolute(_ remote: String) -> String {
        guard EndpointSyntax.scheme(of: remote) == nil, !remote.hasPrefix("/") else { return remote }
        let joined = FileManager.default.currentDirectoryPath + "/" + remote
        return SafePath.normalize(joined) ?? joined
    }
}
