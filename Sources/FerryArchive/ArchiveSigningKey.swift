import Crypto
import Foundation

/// The key of `--signing-key FILE`: archive manifests are signed with HMAC-SHA256 under it, so a file and manifest
/// edited together (a recomputed SHA-256) are told apart from what the archiver wrote. Never logged or printed.
public struct ArchiveSigningKey: Sendable {
    let key: SymmetricKey

    /// The key held in `path`: its content, surrounding whitespace trimmed, at least 32 bytes (for example
    /// `head -c 32 /dev/urandom | base64 > FILE`).
    public init(file path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ArchiveError(.usage, "cannot read the signing key file \(path)", fix: "check the path and its permissions")
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.utf8.count >= 32 else {
            throw ArchiveError(
                .usage, "the signing key file \(path) holds fewer than 32 bytes",
                fix: "make one with: head -c 32 /dev/urandom | base64 > \(path)")
        }
        key = SymmetricKey(data: Array(text.utf8))
    }

    /// HMAC-SHA256 of `message`, lowercase hex.
    func sign(_ message: String) -> String {
        HMAC<SHA256>.authenticationCode(for: Array(message.utf8), using: key).map { String(format: "%02x", $0) }.joined()
    }

    /// True when `signature` (hex) is `message`'s; compared in constant time.
    func verify(_ signature: String, for message: String) -> Bool {
        guard signature.count == 64, signature.allSatisfy(\.isHexDigit) else { return false }
        let bytes = stride(from: 0, to: 64, by: 2).map { offset -> UInt8 in
            let start = signature.index(signature.startIndex, offsetBy: offset)
            return UInt8(signature[start..<signature.index(start, offsetBy: 2)], radix: 16)!
        }
        return HMAC<SHA256>.isValidAuthenticationCode(bytes, authenticating: Array(message.utf8), using: key)
    }
}
