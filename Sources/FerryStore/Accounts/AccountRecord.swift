import FerryCore
import Foundation

/// An account as `ferry account list|show` presents it: everything but the secrets.
public struct AccountRecord: Sendable, Hashable {
    public enum Status: String, Sendable {
        /// Usable.
        case active
        /// The provider rejected the refresh token; jobs are held until `ferry account login`.
        case needsReauth = "needs_reauth"
        /// Signed out with `ferry account revoke`; jobs are held until `ferry account login`.
        case revoked
    }

    public var name: String
    public var provider: String
    public var appKey: String?
    public var status: Status
    public var statusReason: String?
    public var apiURL: String?
    public var contentURL: String?
    public var authorizeURL: String?
    public var providerAccountID: String?
    public var maxConcurrent: Int
    /// Whether the kind's secrets are stored (never what they are).
    public var hasSecrets: Bool
    public var hasRefreshToken: Bool
    public var accessTokenExpiresAt: Date?
    public var createdAt: Date
    public var updatedAt: Date
    /// Jobs of this account that have not finished.
    public var unfinishedJobs: Int
    /// Non-secret provider settings.
    public var settings: [String: JSONValue] = [:]
}
