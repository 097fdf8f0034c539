#if canImport(Glibc)
    import Glibc
#endif

/// The kernel's CSPRNG (`/dev/urandom`) read 4 KiB at a time: bulk id generation makes one read per 256 UUIDs
/// instead of two `getrandom` calls per UUID. Not `Sendable`: keep one per thread.
public final class BufferedRandomNumberGenerator: RandomNumberGenerator {
    private var buffer = [UInt64](repeating: 0, count: 512)
    private var position = 512
    /// Owned; closed in `deinit`. -1 when /dev/urandom cannot be opened (the system generator is used instead).
    private let descriptor: Int32

    public init() {
        descriptor = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    public func next() -> UInt64 {
        if position == buffer.count { refill() }
        defer { position += 1 }
        return buffer[position]
    }

    private func refill() {
        let descriptor = self.descriptor
        buffer.withUnsafeMutableBytes { raw in
            var filled = 0
            while descriptor >= 0 && filled < raw.count {
                let count = read(descriptor, raw.baseAddress! + filled, raw.count - filled)
                if count > 0 {
                    filled += count
                } else if count == 0 || errno != EINTR {
                    break
                }
            }
            if filled < raw.count {
                var system = SystemRandomNumberGenerator()
                for index in stride(from: filled / 8 * 8, to: raw.count, by: 8) {
                    raw.storeBytes(of: system.next() as UInt64, toByteOffset: index, as: UInt64.self)
                }
            }
        }
        position = 0
    }
}
