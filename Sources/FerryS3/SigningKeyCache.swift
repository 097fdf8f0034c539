import Crypto
import Synchronization

/// Derived SigV4 signing keys of one set of credentials, by `day/region/service`.
///
/// A key is valid for a whole UTC day, so this holds one or two entries in practice; it is cleared
/// when it grows past a handful, which also drops the keys of earlier days.
final class SigningKeyCache: Sendable {
    private static let limit = 8
    private let keys = Mutex<[String: SymmetricKey]>([:])

    func key(for scope: String) -> SymmetricKey? {
        keys.withLock { $0[scope] }
    }

    func store(_ key: SymmetricKey, for scope: String) {
        keys.withLock { keys in
            if keys.count >= Self.limit { keys.removeAll() }
            keys[scope] = key
        }
    }

    var count: Int { keys.withLock { $0.count } }
}
