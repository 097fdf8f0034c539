import FerryCore
import Foundation

/// What `ferry account add` stores.
public struct NewAccount: Sendable {
    public var name: String
    public var provider: String
    public var appKey: String?
    /// The kind's own secrets, named as the kind names them (Dropbox `app_secret`, S3 `access_key_id` and
    /// `secret_access_key`, Flickr `api_key`): sealed together as one value.
    public var secrets: [String: String]
    public var refreshToken: String?
    public var accessToken: String?
    public var accessTokenExpiresAt: Date?
    public var apiURL: String?
    public var contentURL: String?
    public var authorizeURL: String?
    public var providerAccountID: String?
    public var maxConcurrent: Int?
    /// Usable without `ferry account login`: set by providers whose accounts need no OAuth link (an API key,
    /// access keys). Otherwise an account is linked when it has a refresh token.
    public var linkedWithoutLogin = false
    /// Non-secret provider settings (an S3 region, endpoint and addressing style), shown by `account show`.
    public var settings: [String: JSONValue] = [:]

    public init(
        name: String, provider: String, appKey: String?, secrets: [String: String] = [:], refreshToken: String?,
        accessToken: String? = nil, accessTokenExpiresAt: Date? = nil, apiURL: String? = nil,
        contentURL: String? = nil, authorizeURL: String? = nil, providerAccountID: String? = nil,
        maxConcurrent: Int? = nil
    ) {
        self.name = name
        self.provider = provider
        self.appKey = appKey
        self.secrets = secrets
        self.refreshToken = refreshToken
        self.accessToken = accessToken
        self.accessTokenExpiresAt = accessTokenExpiresAt
        self.apiURL = apiURL
        self.contentURL = contentURL
        self.authorizeURL = authorizeURL
        self.providerAccountID = providerAccountID
        self.maxConcurrent = maxConcurrent
    }
}
