import AsyncHTTPClient
import FerryStore
import Logging

/// What a provider's accounts are: which secrets they hold and how access is renewed.
public protocol AccountKind: Sendable {
    /// True when an account is usable without `ferry account login` (an API key or access keys, no OAuth link).
    var linkedWithoutLogin: Bool { get }
    /// True when the stored credentials are used as they are (no access token to refresh).
    var usesStoredSecretsOnly: Bool { get }
    /// Asks the provider for a new access token. Called under the account's row lock, once across the fleet.
    func refreshAccess(
        _ credentials: AccountCredentials, httpClient: HTTPClient, logger: Logger
    ) async throws -> AccountTokenRefresh
}

extension AccountKind {
    public var linkedWithoutLogin: Bool { false }
    public var usesStoredSecretsOnly: Bool { false }
    public func refreshAccess(
        _ credentials: AccountCredentials, httpClient: HTTPClient, logger: Logger
    ) async throws -> AccountTokenRefresh {
        .rejected(reason: "\(credentials.provider) accounts have no access token to refresh")
    }
}
