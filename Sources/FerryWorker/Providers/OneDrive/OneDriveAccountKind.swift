import AsyncHTTPClient
import FerryOneDrive
import FerryHTTP
import FerryStore
import Foundation
import Logging

/// OneDrive accounts (Microsoft identity platform OAuth 2.0): an application (client) id, a client secret only for
/// confidential clients (its secrets: `{"client_secret"}`, sealed), and a refresh token (`offline_access`) from
/// `ferry account login` or `ferry account add`. Access tokens live about an hour and are renewed from the refresh
/// token before they run out; a refresh token Microsoft rejects (`invalid_grant`) holds the account's jobs until it
/// is logged in again.
struct OneDriveAccountKind: AccountKind {
    static let clientID = AccountInput(
        "client-id", .value(valueName: "id"), help: "The application (client) id of the app registration. Required.")
    static let clientSecret = AccountInput(
        "client-secret", .secretFile, help: "File holding a client secret (confidential clients only; desktop apps have none); - reads stdin.")
    static let refreshToken = AccountInput("refresh-token", .secretFile, help: "File holding a refresh token; without one: ferry account login.")
    static let apiURL = AccountInput(
        "api-url", .value(valueName: "url"),
        help: "One base URL for Graph ({url}/v1.0) and, without --login-url, the identity platform ({url}/common): a dev server. Default: Microsoft's.")
    static let loginURL = AccountInput(
        "login-url", .value(valueName: "url"),
        help: "The identity platform with its tenant (token endpoint {url}/oauth2/v2.0/token). Default: https://login.microsoftonline.com/common.")

    var inputs: [AccountInput] { [Self.clientID, Self.clientSecret, Self.refreshToken, Self.apiURL, Self.loginURL] }
    var login: (any AccountLoginFlow)? { OneDriveLoginFlow() }

    func prepare(_ inputs: AccountInputs, httpClient: HTTPClient, logger: Logger) async throws(AccountSetupError) -> (NewAccount, note: String) {
        let app = try Self.app(inputs)
        var account = NewAccount(
            name: inputs.name, provider: inputs.provider, appKey: app.appKey, secrets: Self.secrets(app), refreshToken: inputs[Self.refreshToken],
            apiURL: app.apiURL, contentURL: nil, authorizeURL: app.authorizeURL, maxConcurrent: inputs.maxConcurrent)
        let note = try await account.checkRefreshToken(
            provider: "onedrive", verify: inputs.verify, client: Self.client(app, httpClient: httpClient, logger: logger),
            clientID: app.appKey, clientSecret: app.appSecret
        ) { Self.setupError($0, doing: "check the refresh token") }
        return (account, note)
    }

    func refreshAccess(_ credentials: AccountCredentials, httpClient: HTTPClient, logger: Logger) async throws -> AccountTokenRefresh {
        // Microsoft rotates refresh tokens with each grant (the first one lapses 90 days after it was issued): the new one
        // is stored, sealed, so an account never needs a login for age alone.
        let client = OneDriveClient(httpClient: httpClient, endpoints: credentials.oneDriveEndpoints, logger: logger)
        return try await OAuthRefresh.refresh(credentials, logger: logger) { clientID, refreshToken throws(OneDriveError) in
            try await client.refreshAccessToken(refreshToken: refreshToken, clientID: clientID, clientSecret: credentials.oneDriveClientSecret)
        }
    }

    static func secrets(_ app: AccountApp) -> [String: String] {
        app.appSecret.map { ["client_secret": $0] } ?? [:]
    }

    static func app(_ inputs: AccountInputs) throws(AccountSetupError) -> AccountApp {
        guard let clientID = inputs[clientID], !clientID.isEmpty else {
            throw AccountSetupError(.usage, "\(Self.clientID.flag) is required for OneDrive (the application id of the app registration)")
        }
        let secret = inputs[clientSecret].flatMap { $0.isEmpty ? nil : $0 }
        return AccountApp(appKey: clientID, appSecret: secret, apiURL: try inputs.url(apiURL), contentURL: nil, authorizeURL: try inputs.url(loginURL))
    }

    /// The hosts of an account: `apiURL` stands for Graph's and, unless `loginURL` is given, the identity platform's.
    static func endpoints(apiURL: String?, loginURL: String?) -> OneDriveEndpoints {
        var endpoints = apiURL.map { OneDriveEndpoints.single($0) } ?? .production
        if let loginURL { endpoints.login = OneDriveEndpoints.trimmedURL(loginURL) }
        return endpoints
    }

    static func client(_ app: AccountApp, httpClient: HTTPClient, logger: Logger) -> OneDriveClient {
        OneDriveClient(httpClient: httpClient, endpoints: endpoints(apiURL: app.apiURL, loginURL: app.authorizeURL), logger: logger)
    }

    static func setupError(_ error: OneDriveError, doing action: String) -> AccountSetupError {
        AccountSetupError.tokenEndpoint(error, service: "Microsoft", doing: action)
    }
}
