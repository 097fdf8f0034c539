import AsyncHTTPClient
import FerryInstagram
import FerryStore
import Foundation
import Logging

/// Instagram accounts hold one long-lived user token (60 days), sealed like every other secret (as the account's
/// refresh token; refreshed tokens replace the access token). A token is refreshed with
/// `/refresh_access_token` before it lapses: first a day after it was added (the earliest Instagram allows, and
/// the answer says how long tokens live), then halfway through each new token's life. A token Instagram rejects
/// (code 190: expired or revoked) holds the account's jobs until the account is given a new one.
struct InstagramAccountKind: AccountKind {
    static let token = AccountInput("token", .secretFile, help: "File holding a long-lived Instagram user token; - reads stdin. Required.")
    static let apiURL = AccountInput(
        "api-url", .value(valueName: "url"), help: "Graph base URL. Default: \(InstagramEndpoints.production.api)")

    /// A token is refreshable once it is a day old (Instagram's rule).
    static let minimumAge: TimeInterval = 86_400
    /// How long Instagram says long-lived tokens live, when an answer does not say.
    static let lifetime: TimeInterval = 60 * 86_400

    var inputs: [AccountInput] { [Self.token, Self.apiURL] }
    /// A held account gets a new token with `ferry account login ACCOUNT --token-file FILE`.
    var login: (any AccountLoginFlow)? { InstagramLoginFlow() }

    func prepare(_ inputs: AccountInputs, httpClient: HTTPClient, logger: Logger) async throws(AccountSetupError) -> (NewAccount, note: String) {
        guard let token = inputs[Self.token]?.trimmingCharacters(in: .whitespacesAndNewlines), !token.isEmpty else {
            throw AccountSetupError(.usage, "\(Self.token.flag) is required for Instagram (a long-lived user token, from a file or -)")
        }
        let apiURL = try inputs.url(Self.apiURL)
        // The token's age is unknown: assume it is new, and refresh it as soon as Instagram allows.
        let account = NewAccount(
            name: inputs.name, provider: inputs.provider, appKey: nil, refreshToken: token, accessToken: token,
            accessTokenExpiresAt: Date().addingTimeInterval(Self.minimumAge), apiURL: apiURL, maxConcurrent: inputs.maxConcurrent)
        guard inputs.verify else { return (account, "added \(inputs.name) (instagram)") }
        let user = try await Self.verifiedUser(token: token, apiURL: apiURL, httpClient: httpClient, logger: logger)
        return (account, "added \(inputs.name) (instagram), token verified for @\(InstagramText.username(user.username))")
    }

    func refreshAccess(_ credentials: AccountCredentials, httpClient: HTTPClient, logger: Logger) async throws -> AccountTokenRefresh {
        guard let token = credentials.instagramToken else { return .rejected(reason: "no Instagram token stored") }
        let client = InstagramClient(httpClient: httpClient, endpoints: credentials.instagramEndpoints, logger: logger)
        let grant: InstagramTokenGrant
        do {
            grant = try await client.refresh(token: token)
        } catch {
            return try Self.refusal(error, token: token, account: credentials.name, logger: logger)
        }
        logger.info("Instagram token refreshed", metadata: ["account": "\(credentials.name)", "expires_in_s": "\(Int(grant.expiresIn ?? Self.lifetime))"])
        return .granted(accessToken: grant.accessToken, expiresAt: Date().addingTimeInterval(Self.refreshAfter(lifetime: grant.expiresIn)))
    }

    /// What a refused refresh means: a rejected token (code 190) needs a new one; another refusal (most likely
    /// a token younger than a day) keeps the token and asks again in a day; anything else is the attempt's failure.
    static func refusal(_ error: InstagramError, token: String, account: String, logger: Logger) throws -> AccountTokenRefresh {
        switch error.code {
        case .invalidToken:
            logger.warning("Instagram token rejected; the account needs a new token", metadata: ["account": "\(account)"])
            return .rejected(reason: "Instagram rejected the token (code 190: expired or revoked)")
        case .apiError:
            logger.notice("Instagram did not refresh the token yet; trying again in a day", metadata: ["account": "\(account)", "error": "\(error)"])
            return .granted(accessToken: token, expiresAt: Date().addingTimeInterval(minimumAge))
        default:
            throw error
        }
    }

    /// When to refresh a token that lives `lifetime` seconds: halfway, so a worker that is down for weeks still finds it
    /// valid. Short test lifetimes are honoured as given.
    static func refreshAfter(lifetime: Double?) -> TimeInterval {
        max(1, (lifetime ?? Self.lifetime) / 2)
    }
}
