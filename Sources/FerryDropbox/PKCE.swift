import FerryCore
import Crypto

/// An RFC 7636 proof key for the authorization-code flow of a public client (method S256).
///
/// The verifier is a secret until the code is exchanged: `description`, `debugDescription` and
/// reflection show only the challenge.
public struct PKCE: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// 64 characters from the unreserved set; sent only in the token request.
    public let verifier: String
    /// `base64url(SHA-256(verifier))` without padding; sent in the authorize URL.
    public let challenge: String

    /// Derives the challenge of a given verifier (43 to 128 unreserved characters).
    public init(verifier: String) {
        self.verifier = verifier
        self.challenge = Self.challenge(for: verifier)
    }

    /// A fresh verifier from the system's cryptographically secure generator, and its challenge.
    public static func generate() -> PKCE {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        var generator = SystemRandomNumberGenerator()
        let verifier = String((0..<64).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
        return PKCE(verifier: verifier)
    }

    /// `base64url(SHA-256(verifier))` without `=` padding.
    public static func challenge(for verifier: String) -> String {
        var hasher = SHA256()
        Array(verifier.utf8).withUnsafeBytes { hasher.update(bufferPointer: $0) }
        return Base64URL.encode(Array(hasher.finalize()))
    }

    public var description: String { "PKCE(challenge: \(challenge), verifier: [REDACTED])" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["challenge": challenge, "verifier": "[REDACTED]"], displayStyle: .struct)
    }
}
