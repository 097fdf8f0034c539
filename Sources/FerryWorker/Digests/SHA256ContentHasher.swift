import Crypto

/// SHA-256 as a ``ContentHasher``, lowercase hex.
struct SHA256ContentHasher: ContentHasher {
    private var hash = SHA256()

    mutating func update(_ bytes: UnsafeRawBufferPointer) { hash.update(bufferPointer: bytes) }

    func finalize() -> String { hash.finalize().map { String(format: "%02x", $0) }.joined() }
}
