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
}
