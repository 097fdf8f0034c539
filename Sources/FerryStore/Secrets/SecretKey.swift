import Crypto
import Foundation

/// The key that seals provider secrets at rest: 32 random bytes from `FERRY_SECRET_KEY` (base64 or hex) or from
/// the file named by `FERRY_SECRET_KEY_FILE`.
public struct SecretKey: Sendable {
    let key: SymmetricKey
    /// A short fingerprint stored beside sealed values, so "sealed with another key" is told apart from damage.
    public let id: String

    /// Parses 32 bytes written as base64 (44 characters) or hex (64 characters).
    public init(text: String) throws(SecretKeyError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        var bytes: [UInt8]?
        if trimmed.count == 64, trimmed.allSatisfy(\.isHexDigit) {
            bytes = stride(from: 0, to: 64, by: 2).map { offset in
                let start = trimmed.index(trimmed.startIndex, offsetBy: offset)
                return UInt8(trimmed[start..<trimmed.index(start, offsetBy: 2)], radix: 16)!
            }
        } else {
            var normalized = trimmed.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while normalized.count % 4 != 0 { normalized += "=" }
            bytes = Data(base64Encoded: normalized).map { Array($0) }
        }
        guard let bytes, bytes.count == 32 else { throw SecretKeyError(.malformed) }
        self.key = SymmetricKey(data: bytes)
        let digest = SHA256.hash(data: Array("ferry.secret-key.v1".utf8) + bytes)
        self.id = digest.prefix(6).map { String(format: "%02x", $0) }.joined()
    }

    /// Reads the key from `FERRY_SECRET_KEY` or `FERRY_SECRET_KEY_FILE` (exactly one of them).
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> SecretKey {
        let inline = environment["FERRY_SECRET_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        let file = environment["FERRY_SECRET_KEY_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        switch (inline, file) {
        case (nil, nil): throw SecretKeyError(.missing)
        case (.some, .some): throw SecretKeyError(.ambiguous)
        case (let text?, nil): return try SecretKey(text: text)
        case (nil, let path?):
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw SecretKeyError(.unreadableFile(path))
            }
            do {
                return try SecretKey(text: text)
            } catch {
                throw SecretKeyError(.malformedFile(path))
            }
        }
    }

    /// A fresh random key, base64-encoded (what `ferry account` suggests when none is set).
    public static func generateText() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0).base64EncodedString() }
    }
}
