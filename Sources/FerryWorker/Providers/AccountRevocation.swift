import AsyncHTTPClient
import FerryStore
import Logging

/// Signing an account out at its provider (`ferry account revoke`), for kinds whose tokens can be revoked.
public protocol AccountRevocation: Sendable {
    /// Revokes the account's tokens at the provider. Returns normally when they are revoked or were already
    /// invalid; throws ``AccountSetupError`` (`unreachable` or `rejected`) when the provider could not do it.
    func revoke(
        _ credentials: AccountCredentials, tokens: AccountTokenProvider, logger: Logger
    ) async throws(AccountSetupError)
}
