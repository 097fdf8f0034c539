import FerryCore
import Foundation

/// An account's opened secrets and base URLs, for a provider client. Its `description` redacts the secrets, so
/// logging it by mistake leaks nothing.
public struct AccountCredentials: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public var name: String
    public var provider: String
    public var appKey: String?
    /// The kind's own secrets, by the names the kind gave them when it stored them (opened).
    public var secrets: [String: String] = [:]
    /// The one secret of an account stored before schema 30 (a Dropbox app secret, S3 keys as JSON text, a
    /// Flickr API key): its kind reads it when `secrets` is empty. A key rotation moves it into `secrets`.
    public var legacySecret: String?
    public var refreshToken: String?
    public var accessToken: String?
    public var accessTokenIssuedAt: Date?
    public var accessTokenExpiresAt: Date?
    public var apiURL: String?
    public var contentURL: String?
    public var authorizeURL: String?
    public var status: AccountRecord.Status
    public var statusReason: String?
    /// Non-secret provider settings (an S3 region, endpoint and addressing style).
    public var settings: [String: JSONValue] = [:]

    /// True when the access token is still good for longer than the refresh margin: 5 minutes, or a tenth of
    /// the token's lifetime when that is shorter (so short-lived tokens are not refreshed on every call).
    public func accessTokenIsFresh(now: Date = Date()) -> Bool {
        guard accessToken != nil, let expires = accessTokenExpiresAt else { return false }
        let lifetime = accessTokenIssuedAt.map { expires.timeIntervalSince($0) } ?? 14400
        let margin = min(300, max(0, lifetime) / 10)
        return expires.timeIntervalSince(now) > margin
    }

    public var description: String {
        "AccountCredentials(\(name), \(provider), \(status.rawValue), secrets redacted)"
    }

    public var debugDescription: String { description }
}
