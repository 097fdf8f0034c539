import Crypto
import Foundation

/// Seals secrets with AES-256-GCM before they are stored, and opens them after they are read.
///
/// Format: one version byte, then nonce ‖ ciphertext ‖ tag. The context (account and field) is authenticated,
/// so a sealed value moved to another account or column fails to open instead of being used there.
public struct SecretBox: Sendable {
    public let key: SecretKey
    static let version: UInt8 = 1

    public init(key: SecretKey) {
        self.key = key
    }

    public func seal(_ secret: String, context: String) throws -> [UInt8] {
        let box = try AES.GCM.seal(Array(secret.utf8), using: key.key, authenticating: Array(context.utf8))
        guard let combined = box.combined else { throw SecretBoxError(.sealFailed) }
        return [Self.version] + Array(combined)
    }

    public func open(_ sealed: [UInt8], context: String, keyID: String?) throws(SecretBoxError) -> String {
        if let keyID, keyID != key.id { throw SecretBoxError(.wrongKey) }
        guard sealed.first == Self.version, sealed.count > 1 + 12 + 16 else { throw SecretBoxError(.damaged) }
        do {
            let box = try AES.GCM.SealedBox(combined: sealed.dropFirst())
            let plain = try AES.GCM.open(box, using: key.key, authenticating: Array(context.utf8))
            return String(decoding: plain, as: UTF8.self)
        } catch {
            throw SecretBoxError(keyID == nil ? .wrongKeyOrDamaged : .damaged)
        }
    }
}

/// A secret that could not be sealed or opened. Never carries the secret.
public struct SecretBoxError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable { case sealFailed, wrongKey, damaged, wrongKeyOrDamaged }
    public let code: Code

    init(_ code: Code) { self.code = code }

    public var description: String {
        switch code {
        case .sealFailed: "could not encrypt the secret"
        case .wrongKey:
            "the stored credentials were encrypted with a different FERRY_SECRET_KEY: use that key, or link the account again with ferry account login"
        case .damaged: "the stored credentials do not decrypt (damaged or moved between accounts): link the account again with ferry account login"
        case .wrongKeyOrDamaged: "the stored credentials do not decrypt with this FERRY_SECRET_KEY: use the key they were stored with, or link the account again"
        }
    }
}
