import AsyncHTTPClient
import FerryStore
import Logging

/// What a provider's accounts are: which secrets they hold and how access is renewed.
public protocol AccountKind: Sendable {
    /// True when an account is usable without `ferry account login` (an API key or access keys, no OAuth link).
    var linkedWithoutLogin: Bool { get }
    /// True when the stored credentials are used as they are (no access token to refresh).
    var usesStoredSecretsOnly: Bool { get }
    /// The `ferry account add` options this kind takes, declared once: the command parses them, refuses any
    /// other (naming it) and lists them in its help.
    var inputs: [AccountInput] { get }
    /// Turns what `ferry account add` was given into the account to store, checking the credentials with the
    /// provider when `inputs.verify` is set. Returns the account and a line for the user.
    func prepare(_ inputs: AccountInputs, httpClient: HTTPClient, logger: Logger) async throws(AccountSetupError) -> (NewAccount, note: String)
    /// The rows `ferry account show` prints for this kind's own fields, in the kind's words: whether each secret
    /// is stored (never the secret) and the settings that matter for it.
    func shownFields(of account: AccountRecord) -> [AccountField]
    /// How `ferry account revoke` signs an account of this kind out at the provider, or `nil` when the kind has
    /// nothing to revoke (keys stay valid until the user deletes them at the provider).
    var revocation: (any AccountRevocation)? { get }
    /// How `ferry account login` links an account of this kind, or `nil` when it is usable once added.
    var login: (any AccountLoginFlow)? { get }
    /// This kind's named secrets from the one secret an account stored before schema 30 (`ferry account rekey`
    /// moves it into the new shape with this); `nil` when the kind did not exist then.
    func secrets(fromLegacy secret: String) -> [String: String]?
    /// Asks the provider for a new access token. Called under the account's row lock, once across the fleet.
    func refreshAccess(
        _ credentials: AccountCredentials, httpClient: HTTPClient, logger: Logger
    ) async throws -> AccountTokenRefresh
}

extension AccountKind {
    public var revocation: (any AccountRevocation)? { nil }
    public var login: (any AccountLoginFlow)? { nil }
    public var linkedWithoutLogin: Bool { false }
    public var usesStoredSecretsOnly: Bool { false }
    public func secrets(fromLegacy secret: String) -> [String: String]? { nil }
    public func refreshAccess(
        _ credentials: AccountCredentials, httpClient: HTTPClient, logger: Logger
    ) async throws -> AccountTokenRefresh {
        .rejected(reason: "\(credentials.provider) accounts have no access token to refresh")
    }
}
