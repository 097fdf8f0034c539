import Synchronization

/// What memory accounts hold: bytes by `memory:ACCOUNT:/key`, each with a version that changes when it is written.
final class MemoryBlobs: Sendable {
    struct Blob: Sendable, Equatable {
        var bytes: [UInt8]
        var version: Int
    }

    static let shared = MemoryBlobs()
    private let blobs = Mutex<[String: Blob]>([:])
    private let writes = Mutex(0)

    func put(_ location: String, _ bytes: [UInt8]) {
        let version = writes.withLock { count in
            count += 1
            return count
        }
        blobs.withLock { $0[location] = Blob(bytes: bytes, version: version) }
    }

    func get(_ location: String) -> Blob? { blobs.withLock { $0[location] } }

    /// Every location below `prefix`, in order.
    func list(_ prefix: String) -> [(location: String, blob: Blob)] {
        blobs.withLock { blobs in blobs.filter { $0.key.hasPrefix(prefix) }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }
    }

    /// How many times anything was written (a copy that writes nothing leaves it alone).
    var writeCount: Int { writes.withLock { $0 } }
}
