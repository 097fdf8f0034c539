import FerryCore
/// The answer of Dropbox's `/oauth2/token` endpoint.
///
/// Holds secrets: `description`, `debugDescription` and reflection show whether tokens are
/// present, never their values.
public struct DropboxTokenGrant: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Short-lived bearer token (`sl.` + ...).
    public var accessToken: String
    /// Lifetime of the access token in seconds (Dropbox: 14400).
    public var expiresIn: Double?
    /// Long-lived refresh token; only from an `authorization_code` grant with
    /// `token_access_type=offline` (Dropbox does not rotate it on refresh).
    public var refreshToken: String?
    /// `dbid:...` of the linked account (code grant only).
    public var accountID: String?
    /// Space-separated scopes granted.
    public var scope: String?

    public init(accessToken: String, expiresIn: Double? = nil, refreshToken: String? = nil, accountID: String? = nil, scope: String? = nil) {
        self.accessToken = accessToken
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.accountID = accountID
        self.scope = scope
    }

    /// Parses the token endpoint's JSON; `nil` without an `access_token`.
    init?(json: JSONValue) {
        guard let accessToken = json["access_token"]?.stringValue, !accessToken.isEmpty else { return nil }
        self.accessToken = accessToken
        self.expiresIn = json["expires_in"]?.numberValue
        self.refreshToken = json["refresh_token"]?.stringValue
        self.accountID = json["account_id"]?.stringValue
        self.scope = json["scope"]?.stringValue
    }

    public var description: String {
        var parts = ["accessToken: [REDACTED]"]
        if let expiresIn { parts.append("expiresIn: \(expiresIn)") }
        parts.append("refreshToken: \(refreshToken == nil ? "nil" : "[REDACTED]")")
        if let accountID { parts.append("accountID: \(accountID)") }
        if let scope { parts.append("scope: \(scope)") }
        return "DropboxTokenGrant(\(parts.joined(separator: ", ")))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: [
            "accessToken": "[REDACTED]",
            "expiresIn": expiresIn as Any,
            "refreshToken": refreshToken == nil ? "nil" : "[REDACTED]",
            "accountID": accountID as Any,
            "scope": scope as Any,
        ], displayStyle: .struct)
    }
}
