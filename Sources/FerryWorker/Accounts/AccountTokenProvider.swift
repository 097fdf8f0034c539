import AsyncHTTPClient
import FerryDropbox
import FerryStore
import Foundation
import Logging
import Synchronization

/// Hands out fresh access tokens for provider accounts, shared by every job of a process.
///
/// Tokens are cached in memory; a token near expiry (or rejected as expired) is refreshed through
/// `FerryStore.refreshAccessToken`, which holds the account's row lock so only one refresh per account runs across
/// the fleet and everyone else picks up its result. A refresh token the provider rejects (`invalid_grant`) marks
/// the account as needing re-authorization: its jobs are held, not failed.
public final class AccountTokenProvider: Sendable {
    let store: FerryStore
    let box: SecretBox
    let httpClient: HTTPClient
    let logger: Logger
    let actor: String
    private let cache = Mutex<[String: AccountCredentials]>([:])

    public init(store: FerryStore, box: SecretBox, httpClient: HTTPClient, actor: String, logger: Logger) {
        self.store = store
        self.box = box
        self.httpClient = httpClient
        self.actor = actor
        self.logger = logger
    }

    /// Credentials with an access token that is good for a while.
    public func credentials(for account: String) async throws -> AccountCredentials {
        if let cached = cache.withLock({ $0[account] }), cached.accessTokenIsFresh() { return cached }
        let stored = try await store.credentials(for: account, box: box)
        if stored.status == .active, stored.accessTokenIsFresh() {
            cache.withLock { $0[account] = stored }
            return stored
        }
        return try await refresh(account, replacing: stored.accessToken)
    }

    /// The stored credentials as they are, without a token refresh: for API-key providers (Flickr), whose key
    /// is the sealed `appSecret`.
    public func plainCredentials(for account: String) async throws -> AccountCredentials {
        try await store.credentials(for: account, box: box)
    }

    /// Names of the accounts of `provider` (to pick the only one when a job names none).
    public func accountNames(provider: String) async throws -> [String] {
        try await store.accounts().filter { $0.provider == provider }.map(\.name)
    }

    /// Refreshes after the provider said `stale` expired (unless someone already replaced it).
    public func credentials(for account: String, afterRejecting stale: String) async throws -> AccountCredentials {
        if let cached = cache.withLock({ $0[account] }), cached.accessToken != stale, cached.accessTokenIsFresh() {
            return cached
        }
        return try await refresh(account, replacing: stale)
    }

    /// A Dropbox client for the account's hosts.
    public func dropbox(_ credentials: AccountCredentials) -> DropboxClient {
        DropboxClient(httpClient: httpClient, endpoints: credentials.dropboxEndpoints, logger: logger)
    }

    private func refresh(_ account: String, replacing stale: String?) async throws -> AccountCredentials {
        let logger = self.logger
        let fresh = try await store.refreshAccessToken(account: account, box: box, replacing: stale, by: actor) { credentials in
            guard credentials.provider == "dropbox", let appKey = credentials.appKey, let refreshToken = credentials.refreshToken else {
                return .rejected(reason: "no refresh token or app key stored")
            }
            do {
                let grant = try await self.dropbox(credentials).refreshAccessToken(
                    refreshToken: refreshToken, appKey: appKey, appSecret: credentials.appSecret)
                logger.info("access token refreshed", metadata: ["account": "\(account)", "expires_in_s": "\(Int(grant.expiresIn ?? 14400))"])
                return .granted(accessToken: grant.accessToken, expiresAt: Date().addingTimeInterval(grant.expiresIn ?? 14400))
            } catch let error as DropboxError where error.code == .invalidGrant || error.code == .invalidClient {
                logger.warning("refresh token rejected; account needs re-authorization", metadata: ["account": "\(account)"])
                return .rejected(reason: error.code == .invalidGrant ? "refresh token rejected (invalid_grant)" : "app key or secret rejected (invalid_client)")
            }
        }
        cache.withLock { $0[account] = fresh }
        return fresh
    }

    /// Drops the cached token (after a sign-out, say).
    public func forget(_ account: String) {
        _ = cache.withLock { $0.removeValue(forKey: account) }
    }
}
