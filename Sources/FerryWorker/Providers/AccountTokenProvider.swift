import AsyncHTTPClient
import FerryProviders
import FerryStore
import Foundation
import Tracing
import Logging
import Synchronization

/// Hands out fresh access tokens for provider accounts, shared by every job of a process.
///
/// Tokens are cached in memory; a token near expiry (or rejected as expired) is refreshed through
/// `FerryStore.refreshAccessToken`, which holds the account's row lock so only one refresh per account runs across
/// the fleet and everyone else picks up its result. How a token is renewed is the account's provider's business
/// (``AccountKind/refreshAccess(_:httpClient:logger:)``). A refresh token the provider rejects marks the account
/// as needing re-authorization: its jobs are held, not failed.
public final class AccountTokenProvider: Sendable {
    let store: FerryStore
    let box: SecretBox
    let httpClient: HTTPClient
    let logger: Logger
    let actor: String
    let registry: ProviderRegistry
    /// Paces each account's API requests at its `tps_limit`, shared by every job of the process (and, given
    /// `shares`, by every process of the fleet).
    public let pacer: RequestPacer
    private let cache = Mutex<[String: AccountCredentials]>([:])
    /// Credentials of key-based accounts (access keys, API keys) as read, for a few seconds: a copy or upload of many small
    /// files would otherwise read and open the account's row for every request it signs.
    private let plainCache = Mutex<[String: (credentials: AccountCredentials, until: ContinuousClock.Instant)]>([:])
    /// How long ``plainCredentials(for:)`` reuses what it read: an `account update` or `rekey` reaches running
    /// workers within this.
    static let plainCredentialsLifetime: Duration = .seconds(5)

    public init(
        store: FerryStore, box: SecretBox, httpClient: HTTPClient, actor: String, logger: Logger,
        registry: ProviderRegistry, shares: AccountShares? = nil
    ) {
        self.registry = registry
        self.pacer = RequestPacer(store: store, shares: shares)
        self.store = store
        self.box = box
        self.httpClient = httpClient
        self.actor = actor
        self.logger = logger
    }

    /// Credentials with an access token that is good for a while.
    public func credentials(for account: String) async throws -> AccountCredentials {
        if let cached = cache.withLock({ $0[account] }), cached.accessTokenIsFresh() { return cached }
        let stored = try await store.accounts.credentials(for: account, box: box)
        if stored.status == .active, stored.accessTokenIsFresh() {
            cache.withLock { $0[account] = stored }
            return stored
        }
        return try await refresh(account, replacing: stored.accessToken)
    }

    /// The stored credentials as they are, without a token refresh: for key-based providers, whose keys are used
    /// as stored.
    public func plainCredentials(for account: String) async throws -> AccountCredentials {
        let now = ContinuousClock.now
        if let cached = plainCache.withLock({ $0[account] }), cached.until > now { return cached.credentials }
        let credentials = try await store.accounts.credentials(for: account, box: box)
        plainCache.withLock { $0[account] = (credentials, now + Self.plainCredentialsLifetime) }
        return credentials
    }

    /// Names of the accounts of `provider` (to pick the only one when a job names none).
    public func accountNames(provider: String) async throws -> [String] {
        try await store.accounts.all().filter { $0.provider == provider }.map(\.name)
    }

    /// Refreshes after the provider said `stale` expired (unless someone already replaced it).
    public func credentials(for account: String, afterRejecting stale: String) async throws -> AccountCredentials {
        if let cached = cache.withLock({ $0[account] }), cached.accessToken != stale, cached.accessTokenIsFresh() {
            return cached
        }
        return try await refresh(account, replacing: stale)
    }

    private func refresh(_ account: String, replacing stale: String?) async throws -> AccountCredentials {
        let logger = self.logger
        let (registry, httpClient) = (self.registry, self.httpClient)
        // The account's name only: tokens never go into span attributes.
        let fresh = try await JobSpan.run("ferry.token.refresh", ["ferry.account": .string(account)]) {
            try await store.accounts.refreshAccessToken(account: account, box: box, replacing: stale, by: actor) { credentials in
                guard let kind = registry.accountKind(of: credentials.provider) else {
                    return .rejected(reason: "no provider named \(credentials.provider) in this version of Ferry")
                }
                return try await kind.refreshAccess(credentials, httpClient: httpClient, logger: logger)
            }
        }
        cache.withLock { $0[account] = fresh }
        return fresh
    }

    /// What becomes of a job when this process's key does not open `account`'s secrets (`error` is the store's
    /// `secretKeyMismatch`). When the other accounts open with this key, the account is the odd one, sealed with a
    /// stray key: it is held (``AccountStore/holdSealedWithAnotherKey(_:box:by:)``) and so is the job, with the
    /// reason and the fix. Otherwise this worker's key is the stale one (a rotation re-sealed everything while it
    /// ran): the job comes back in a while for a worker with the new key, without using an attempt.
    public func keyMismatchFailure(account: String, _ error: FerryStoreError) async -> JobFailure {
        do {
            if let reason = try await store.accounts.holdSealedWithAnotherKey(account, box: box, by: actor) {
                forget(account)
                _ = plainCache.withLock { $0.removeValue(forKey: account) }
                logger.error("account held: its secrets are sealed with another key", metadata: ["account": "\(account)", "reason": "\(reason)"])
                return .sealedWithStrayKey(account: account, "account '\(account)' is held: \(reason)")
            }
        } catch {
            // The job is deferred as below and tried again; the hold is attempted again then.
            logger.warning("could not hold the account", metadata: ["account": "\(account)", "error": "\(error)"])
        }
        return .secretKeyMismatch(
            "this worker's FERRY_SECRET_KEY (fingerprint \(box.key.id)) does not open account '\(account)': its secrets were "
                + "re-sealed under another key while the worker ran (\(error.message)); fix: restart the worker with that key; "
                + "the job comes back for a worker that has it")
    }

    /// Drops the cached token (after a sign-out, say).
    public func forget(_ account: String) {
        _ = cache.withLock { $0.removeValue(forKey: account) }
    }
}
