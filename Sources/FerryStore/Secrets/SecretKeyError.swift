/// Why the secret key could not be loaded. The description names the fix and never echoes the key.
public struct SecretKeyError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        case missing
        case ambiguous
        case malformed
        case unreadableFile(String)
        case malformedFile(String)
    }

    public let code: Code

    init(_ code: Code) { self.code = code }

    public var description: String {
        let make = "make one with: head -c 32 /dev/urandom | base64"
        switch code {
        case .missing:
            return "no secret key: set FERRY_SECRET_KEY (32 random bytes, base64) or FERRY_SECRET_KEY_FILE "
                + "(a file holding it); tokens are stored encrypted with it. \(make)"
        case .ambiguous:
            return "both FERRY_SECRET_KEY and FERRY_SECRET_KEY_FILE are set: keep only one"
        case .malformed:
            return "FERRY_SECRET_KEY must be 32 random bytes written as base64 (44 characters) or hex (64); \(make)"
        case .unreadableFile(let path):
            return "cannot read FERRY_SECRET_KEY_FILE \(path): check the path and its permissions"
        case .malformedFile(let path):
            return "FERRY_SECRET_KEY_FILE \(path) must hold 32 random bytes written as base64 or hex; \(make)"
        }
    }
}
