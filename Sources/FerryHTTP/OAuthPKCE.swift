import Crypto

/// An RFC 7636 proof key for an OAuth code flow from a desktop app (method S256).
///
/// The verifier is a secret until the code is exchanged: `description`, `debugDescription` and reflection show only
/// the challenge.
public struct OAuthPKCE: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// 64 characters from the unreserved set; sent only in the token request.
    public let verifier: String
    /// `base64url(SHA-256(verifier))` without padding; sent in the authorize URL.
    public let challenge: String

    /// Derives the challenge of a given verifier (43 to 128 unreserved characters).
    public init(verifier: String) {
        self.verifier = verifier
        var hasher = SHA256()
        hasher.update(data: Array(verifier.utf8))
        challenge = Self.base64URL(Array(hasher.finalize()))
    }

    /// A fresh verifier from the system's cryptographically secure generator, and its challenge.
    public static func generate() -> OAuthPKCE {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        var generator = SystemRandomNumberGenerator()
        return OAuthPKCE(verifier: String((0..<64).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }))
    }

    /// Base64url without padding (RFC 4648 §5).
    static func base64URL(_ bytes: [UInt8]) -> String {
        Base64Text.url(bytes)
    }

    public var description: String { "OAuthPKCE(challenge: \(challenge), verifier: [REDACTED])" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["challenge": challenge, "verifier": "[REDACTED]"], displayStyle: .struct)
    }
}
