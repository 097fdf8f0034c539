import FerryCore
import Foundation
import Postgres

/// An `accounts` row as stored: secrets still sealed.
struct SealedAccountRow: Sendable {
    static let columns = """
        name, provider, app_key, encode(secrets_sealed, 'base64') AS secrets,
        encode(app_secret_sealed, 'base64') AS app_secret, encode(refresh_token_sealed, 'base64') AS refresh_token,
        encode(access_token_sealed, 'base64') AS access_token, access_token_issued_at, access_token_expires_at,
        api_url, content_url, authorize_url, status, status_reason, key_id, settings::text AS settings
        """

    var name: String
    var provider: String
    var appKey: String?
    /// The kind's secrets (schema 30 on): one sealed JSON object.
    var secrets: String?
    /// The one secret of an account added before schema 30, until a key rotation moves it to `secrets`.
    var appSecret: String?
    var refreshToken: String?
    var accessToken: String?
    var issuedAt: Date?
    var expiresAt: Date?
    var apiURL: String?
    var contentURL: String?
    var authorizeURL: String?
    var status: String
    var statusReason: String?
    var keyID: String?
    var settings: [String: JSONValue]

    init(row: PostgresRow) throws {
        name = try row.decode(column: "name")
        provider = try row.decode(column: "provider")
        appKey = try row.decode(String?.self, column: "app_key")
        secrets = try row.decode(String?.self, column: "secrets")
        appSecret = try row.decode(String?.self, column: "app_secret")
        refreshToken = try row.decode(String?.self, column: "refresh_token")
        accessToken = try row.decode(String?.self, column: "access_token")
        issuedAt = try row.decode(Date?.self, column: "access_token_issued_at")
        expiresAt = try row.decode(Date?.self, column: "access_token_expires_at")
        apiURL = try row.decode(String?.self, column: "api_url")
        contentURL = try row.decode(String?.self, column: "content_url")
        authorizeURL = try row.decode(String?.self, column: "authorize_url")
        status = try row.decode(column: "status")
        statusReason = try row.decode(String?.self, column: "status_reason")
        keyID = try row.decode(String?.self, column: "key_id")
        settings = (try? JSONValue.parse(try row.decode(String.self, column: "settings")))?.objectValue ?? [:]
    }

    func open(_ box: SecretBox) throws -> AccountCredentials {
        let opened: [String: String]
        do throws(SecretBoxError) {
            opened = try openAll(box)
        } catch {
            throw FerryStoreError(error.code == .damaged ? .credentials : .secretKeyMismatch, "account '\(name)': \(error.description)")
        }
        var secrets = [String: String]()
        if let text = opened[AccountSecrets.field] {
            guard let parsed = AccountSecrets.parse(text) else {
                throw FerryStoreError(.credentials, "account '\(name)': stored secrets are not readable")
            }
            secrets = parsed
        }
        return AccountCredentials(
            name: name, provider: provider, appKey: appKey, secrets: secrets, legacySecret: opened["app_secret"],
            refreshToken: opened["refresh_token"], accessToken: opened["access_token"],
            accessTokenIssuedAt: issuedAt, accessTokenExpiresAt: expiresAt, apiURL: apiURL, contentURL: contentURL,
            authorizeURL: authorizeURL, status: AccountRecord.Status(rawValue: status) ?? .needsReauth,
            statusReason: statusReason, settings: settings)
    }
}
