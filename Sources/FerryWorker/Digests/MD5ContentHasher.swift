import Crypto

/// MD5 as a ``ContentHasher``, lowercase hex: what a plain S3 ETag and a Drive `md5Checksum` state.
struct MD5ContentHasher: ContentHasher {
    private var hash = Insecure.MD5()

    mutating func update(_ bytes: UnsafeRawBufferPointer) { hash.update(bufferPointer: bytes) }

    func finalize() -> String { hash.finalize().map { String(format: "%02x", $0) }.joined() }
}
