import AsyncHTTPClient
import FerryGoogleDrive
import FerryHTTP
import FerryStore
import Foundation
import Logging

/// Google Drive accounts: an OAuth client id (not a secret) and client secret (its secrets: `{"client_secret"}`), and
/// a refresh token from `ferry account login` or `ferry account add`; access tokens live an hour and are renewed from
/// the refresh token before they run out. A refresh token Google rejects (`invalid_grant`) holds the account's jobs
/// until it is logged in again.
struct GoogleDriveAccountKind: AccountKind {
    static let clientID = AccountInput("client-id", .value(valueName: "id"), help: "The OAuth client id of an installed (desktop) app. Required.")
    static let clientSecret = AccountInput("client-secret", .secretFile, help: "File holding the OAuth client secret; - reads stdin. Required.")
    static let refreshToken = AccountInput(
        "refresh-token", .secretFile, help: "File holding a refresh token; without one: ferry account login.")
    static let apiURL = AccountInput(
        "api-url", .value(valueName: "url"),
        help: "One base URL for the Drive API, the token endpoint (/token) and the authorize page (a dev server). Default: Google's.")

    var inputs: [AccountInput] { [Self.clientID, Self.clientSecret, Self.refreshToken, Self.apiURL] }
    var login: (any AccountLoginFlow)? { GoogleDriveLoginFlow() }

    func prepare(_ inputs: AccountInputs, httpClient: HTTPClient, logger: Logger) async throws(AccountSetupError) -> (NewAccount, note: String) {
        let app = try Self.app(inputs)
        var account = NewAccount(
            name: inputs.name, provider: inputs.provider, appKey: app.appKey, secrets: Self.secrets(app), refreshToken: inputs[Self.refreshToken],
            apiURL: app.apiURL, contentURL: nil, authorizeURL: nil, maxConcurrent: inputs.maxConcurrent)
        let note = try await account.checkRefreshToken(
            provider: "gdrive", verify: inputs.verify, client: Self.client(app, httpClient: httpClient, logger: logger),
            clientID: app.appKey, clientSecret: app.appSecret
        ) { Self.setupError($0, doing: "check the refresh token") }
        return (account, note)
    }

    func refreshAccess(_ credentials: AccountCredentials, httpClient: HTTPClient, logger: Logger) async throws -> AccountTokenRefresh {
        let client = GoogleDriveClient(httpClient: httpClient, endpoints: credentials.googleDriveEndpoints, logger: logger)
        return try await OAuthRefresh.refresh(credentials, logger: logger) { clientID, refreshToken throws(GoogleDriveError) in
            try await client.refreshAccessToken(refreshToken: refreshToken, clientID: clientID, clientSecret: credentials.googleClientSecret)
        }
    }

    /// What a Drive account stores sealed: its client secret.
    static func secrets(_ app: AccountApp) -> [String: String] {
        app.appSecret.map { ["client_secret": $0] } ?? [:]
    }

    /// The client and host from what `add` or `login` was given.
    static func app(_ inputs: AccountInputs) throws(AccountSetupError) -> AccountApp {
        guard let clientID = inputs[clientID], !clientID.isEmpty else {
            throw AccountSetupError(.usage, "\(Self.clientID.flag) is required for Google Drive (the OAuth client id of an installed app)")
        }
        guard let secret = inputs[clientSecret], !secret.isEmpty else {
            throw AccountSetupError(.usage, "\(Self.clientSecret.flag) is required for Google Drive (installed apps have a client secret)")
        }
        return AccountApp(appKey: clientID, appSecret: secret, apiURL: try inputs.url(apiURL), contentURL: nil, authorizeURL: nil)
    }

    static func client(_ app: AccountApp, httpClient: HTTPClient, logger: Logger) -> GoogleDriveClient {
        GoogleDriveClient(httpClient: httpClient, endpoints: app.apiURL.map(GoogleDriveEndpoints.single) ?? .production, logger: logger)
    }

    /// A refusal by the token endpoint in `account add` and `account login` terms.
    static func setupError(_ error: GoogleDriveError, doing action: String) -> AccountSetupError {
        AccountSetupError.tokenEndpoint(error, service: "Google", doing: action)
    }
}
