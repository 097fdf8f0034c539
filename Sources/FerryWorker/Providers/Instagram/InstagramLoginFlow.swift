import AsyncHTTPClient
import FerryStore
import Foundation
import Logging

/// Giving an Instagram account a new long-lived token (`ferry account login ACCOUNT --token-file FILE`, or the token
/// pasted on standard input): the way back for an account whose token expired or was revoked (code 190), whose jobs
/// are held. There is no authorization code: the person makes the token in Meta's app dashboard, and ``finish``
/// checks it with `GET /me` before it is sealed and stored (which releases the held jobs). New accounts are added
/// with `ferry account add`.
struct InstagramLoginFlow: AccountLoginFlow {
    /// Where a person makes a long-lived token for their app (Instagram → API setup with Instagram login).
    static let tokenPage = "https://developers.facebook.com/apps/"

    var inputs: [AccountInput] { [] }
    var pastedToken: AccountInput? { InstagramAccountKind.token }

    func app(from inputs: AccountInputs) throws(AccountSetupError) -> AccountApp {
        throw AccountSetupError(
            .usage,
            "no Instagram account named \(inputs.name): add it with ferry account add \(inputs.name) --provider instagram --token-file FILE")
    }

    func app(of stored: AccountCredentials) throws(AccountSetupError) -> AccountApp {
        AccountApp(appKey: stored.appKey ?? "", appSecret: nil, apiURL: stored.apiURL, contentURL: nil, authorizeURL: nil)
    }

    func secrets(of app: AccountApp) -> [String: String] { [:] }

    func start(_ app: AccountApp, loopbackPort: Int?, httpClient: HTTPClient, logger: Logger) -> AccountLoginStart {
        AccountLoginStart(url: Self.tokenPage, codeVerifier: "")
    }

    func finish(
        code: String, started: AccountLoginStart, app: AccountApp, httpClient: HTTPClient, logger: Logger
    ) async throws(AccountSetupError) -> AccountLoginGrant {
        let token = code.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty, !token.contains(where: \.isWhitespace) else {
            throw AccountSetupError(.usage, "the token is empty or has whitespace inside: give just the long-lived token")
        }
        let user = try await InstagramAccountKind.verifiedUser(token: token, apiURL: app.apiURL, httpClient: httpClient, logger: logger)
        // The token's age is unknown: assume it is new, and refresh it as soon as Instagram allows.
        return AccountLoginGrant(
            refreshToken: token, accessToken: token, accessTokenExpiresAt: Date().addingTimeInterval(InstagramAccountKind.minimumAge),
            providerAccountID: user.userID)
    }
}
