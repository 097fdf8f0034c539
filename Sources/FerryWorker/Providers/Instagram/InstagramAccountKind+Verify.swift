import AsyncHTTPClient
import FerryInstagram
import Logging

extension InstagramAccountKind {
    /// The user `token` belongs to, asked with `GET /me` at `apiURL` (Meta's Graph host when `nil`). The errors name
    /// what to do and never hold the token.
    static func verifiedUser(
        token: String, apiURL: String?, httpClient: HTTPClient, logger: Logger
    ) async throws(AccountSetupError) -> InstagramUser {
        let endpoints = apiURL.map(InstagramEndpoints.init(api:)) ?? .production
        do {
            return try await InstagramClient(httpClient: httpClient, endpoints: endpoints, logger: logger, requestTimeout: .seconds(20)).me(token: token)
        } catch {
            switch error.code {
            case .invalidToken:
                throw AccountSetupError(.rejected, "Instagram refused the token (code 190, expired or revoked): get a new long-lived token")
            case .transport, .timeout, .serverError, .rateLimited:
                throw AccountSetupError(.unreachable, "could not reach Instagram to check the token (\(error.code.rawValue)); check --api-url, retry, or add with --no-verify")
            default:
                throw AccountSetupError(.rejected, "\(endpoints.api) did not answer as Instagram's Graph API (\(error.code.rawValue)): check --api-url, or add with --no-verify")
            }
        }
    }
}
