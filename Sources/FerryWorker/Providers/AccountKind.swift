import AsyncHTTPClient
import FerryStore
import Logging

/// What a provider's accounts are: which secrets they hold and how access is renewed.
public protocol AccountKind: Sendable {
    /// True when an account is usable without `ferry account login` (an API key or access keys, no OAuth link).
    var linkedWithoutLogin: Bool { get }
    /// True when the stored credentials are used as they are (no access token to refresh).
    var usesStoredSecretsOnly: Bool { get }
    /// The `ferry account add` options this kind takes, by long name (`app-key`, `refresh-token-file` …); any
    /// other provider option given is refused, naming it.
    var addOptions: [String] { get }
    /// Turns what `ferry account add` was given into the account to store, checking the credentials with the
    /// provider when `inputs.verify` is set. Returns the account and a line for the user.
    func prepare(_ inputs: AccountInputs, httpClient: HTTPClient, logger: Logger) async throws(AccountSetupError) -> (FerryStore.NewAccount, note: String)
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
