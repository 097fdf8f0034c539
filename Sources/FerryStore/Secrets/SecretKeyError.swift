/// Why the secret key could not be loaded. The description names the fix and never echoes the key.
public struct SecretKeyError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        case missing
        case ambiguous
        case malformed
        case unreadableFile(String)
        case malformedFile(String)
        /// The key does not open secrets stored in the database: the accounts named were sealed with another
        /// key (fingerprints `sealedWith`; `keyID` is this key's).
        case doesNotOpen(accounts: [String], sealedWith: [String], keyID: String)
        /// An account command's key is not the one the database's secrets are sealed with: sealing more with it
        /// would leave accounts that the workers (holding the database's key) cannot open. Nothing was written.
        case notTheDatabaseKey(accounts: [String], sealedWith: [String], keyID: String)
        /// `ferry account rekey`: the old key does not open these accounts' secrets either.
        case oldKeyDoesNotOpen(accounts: [String], sealedWith: [String], keyID: String)
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
        case .doesNotOpen(let accounts, let sealedWith, let keyID):
            return "FERRY_SECRET_KEY does not open the secrets in this database: \(Self.list(accounts, sealedWith, keyID)); "
                + "fix: use the key they were sealed with (FERRY_SECRET_KEY or FERRY_SECRET_KEY_FILE), or, after a key rotation, "
                + "re-seal them under this key with ferry account rekey --old-key-file FILE (the old key)"
        case .notTheDatabaseKey(let accounts, let sealedWith, let keyID):
            return "FERRY_SECRET_KEY is not the key this database's secrets are sealed with: \(Self.list(accounts, sealedWith, keyID)); "
                + "secrets sealed with it would not open in the workers; "
                + "fix: set FERRY_SECRET_KEY (or FERRY_SECRET_KEY_FILE) to the key the workers use; to change keys, "
                + "run ferry account rekey --old-key-file FILE (the key they are sealed with); nothing was written"
        case .oldKeyDoesNotOpen(let accounts, let sealedWith, let keyID):
            return "the old key does not open the secrets in this database either: \(Self.list(accounts, sealedWith, keyID)); "
                + "fix: give the key they were sealed with as the old key; nothing was changed"
        }
    }

    /// Accounts and key fingerprints (never key material): "account(s) a, b sealed with key 1a2b3c…, not with this key (4d5e6f…)".
    private static func list(_ accounts: [String], _ sealedWith: [String], _ keyID: String) -> String {
        let names = accounts.prefix(5).map { "'\($0)'" }.joined(separator: ", ") + (accounts.count > 5 ? " and \(accounts.count - 5) more" : "")
        let keys = sealedWith.isEmpty ? "an unrecorded key" : "key fingerprint \(sealedWith.joined(separator: ", "))"
        return "account(s) \(names) are sealed with \(keys), not with this key (fingerprint \(keyID))"
    }
}
