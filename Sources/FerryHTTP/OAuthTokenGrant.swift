import FerryCore

/// The answer of an OAuth 2.0 token endpoint (RFC 6749 §5.1). Holds secrets: `description` and reflection show
/// whether tokens are present, never their values.
public struct OAuthTokenGrant: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var accessToken: String
    /// Lifetime of the access token in seconds (Google: about 3599; Microsoft: 3600–5400).
    public var expiresIn: Double?
    /// A refresh token: from a code grant with offline access, and from refresh grants of services that rotate them
    /// (Microsoft hands out a new one with each grant).
    public var refreshToken: String?
    public var scope: String?

    public init(accessToken: String, expiresIn: Double? = nil, refreshToken: String? = nil, scope: String? = nil) {
        self.accessToken = accessToken
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.scope = scope
    }

    /// Parses the token endpoint's JSON; `nil` without an `access_token` (`expires_in` as a number or a string).
    public init?(json: JSONValue) {
        guard let accessToken = json["access_token"]?.stringValue, !accessToken.isEmpty else { return nil }
        self.accessToken = accessToken
        expiresIn = json["expires_in"]?.numberValue ?? json["expires_in"]?.stringValue.flatMap(Double.init)
        refreshToken = json["refresh_token"]?.stringValue
        scope = json["scope"]?.stringValue
    }

    public var description: String {
        var parts = ["accessToken: [REDACTED]"]
        if let expiresIn { parts.append("expiresIn: \(expiresIn)") }
        parts.append("refreshToken: \(refreshToken == nil ? "nil" : "[REDACTED]")")
        if let scope { parts.append("scope: \(scope)") }
        return "OAuthTokenGrant(\(parts.joined(separator: ", ")))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: [
            "accessToken": "[REDACTED]", "expiresIn": expiresIn as Any, "refreshToken": refreshToken == nil ? "nil" : "[REDACTED]",
            "scope": scope as Any,
        ], displayStyle: .struct)
    }
}
