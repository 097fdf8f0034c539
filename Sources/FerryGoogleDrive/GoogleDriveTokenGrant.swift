import FerryCore

/// The answer of Google's token endpoint.
///
/// Holds secrets: `description`, `debugDescription` and reflection show whether tokens are present, never their
/// values.
public struct GoogleDriveTokenGrant: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Short-lived bearer token.
    public var accessToken: String
    /// Lifetime of the access token in seconds (Google: about 3599).
    public var expiresIn: Double?
    /// Long-lived refresh token; only from an `authorization_code` grant with offline access.
    public var refreshToken: String?
    /// Space-separated scopes granted.
    public var scope: String?

    public init(accessToken: String, expiresIn: Double? = nil, refreshToken: String? = nil, scope: String? = nil) {
        self.accessToken = accessToken
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.scope = scope
    }

    /// Parses the token endpoint's JSON; `nil` without an `access_token`.
    init?(json: JSONValue) {
        guard let accessToken = json["access_token"]?.stringValue, !accessToken.isEmpty else { return nil }
        self.accessToken = accessToken
        expiresIn = json["expires_in"]?.numberValue
        refreshToken = json["refresh_token"]?.stringValue
        scope = json["scope"]?.stringValue
    }

    public var description: String {
        var parts = ["accessToken: [REDACTED]"]
        if let expiresIn { parts.append("expiresIn: \(expiresIn)") }
        parts.append("refreshToken: \(refreshToken == nil ? "nil" : "[REDACTED]")")
        if let scope { parts.append("scope: \(scope)") }
        return "GoogleDriveTokenGrant(\(parts.joined(separator: ", ")))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: [
            "accessToken": "[REDACTED]", "expiresIn": expiresIn as Any,
            "refreshToken": refreshToken == nil ? "nil" : "[REDACTED]", "scope": scope as Any,
        ], displayStyle: .struct)
    }
}
