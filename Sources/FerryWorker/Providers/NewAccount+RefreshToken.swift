import FerryStore
import Foundation

extension NewAccount {
    /// Finishes `ferry account add` for an OAuth account: without a refresh token it is added to be logged in;
    /// without `verify`, as given; else the token is checked by one grant (`grant` throws the setup error), and the
    /// access token it gives is kept (for `defaultLifetime` seconds when the answer does not say). The note says which.
    mutating func checkRefreshToken(
        provider: String, verify: Bool, defaultLifetime: Double = 3599,
        grant: (_ refreshToken: String) async throws(AccountSetupError) -> (accessToken: String, expiresIn: Double?)
    ) async throws(AccountSetupError) -> String {
        guard let refreshToken else { return "added \(name) (\(provider)); link it with: ferry account login \(name)" }
        guard verify else { return "added \(name) (\(provider))" }
        let granted = try await grant(refreshToken)
        accessToken = granted.accessToken
        accessTokenExpiresAt = Date().addingTimeInterval(granted.expiresIn ?? defaultLifetime)
        return "added \(name) (\(provider)), refresh token verified"
    }

    /// ``checkRefreshToken(provider:verify:defaultLifetime:grant:)`` with `client`'s refresh grant for the OAuth
    /// client `clientID`; `setupError` words the client's refusal for `ferry account add`.
    mutating func checkRefreshToken<Client: OAuthRefreshClient>(
        provider: String, verify: Bool, client: Client, clientID: String, clientSecret: String?,
        setupError: (Client.Failure) -> AccountSetupError
    ) async throws(AccountSetupError) -> String {
        try await checkRefreshToken(provider: provider, verify: verify) {
            (refreshToken: String) async throws(AccountSetupError) -> (accessToken: String, expiresIn: Double?) in
            do throws(Client.Failure) {
                let grant = try await client.refreshAccessToken(refreshToken: refreshToken, clientID: clientID, clientSecret: clientSecret)
                return (grant.accessToken, grant.expiresIn)
            } catch {
                throw setupError(error)
            }
        }
    }
}
