import Synchronization

/// A running count of bytes handed to the network by an attempt's concurrent streams (parts sent in parallel),
/// for live progress. Display only: a resent part counts again, so callers cap it at the file's size.
final class ByteTally: Sendable {
    private let total = Mutex<Int64>(0)

    /// Adds `count` and returns the new total.
    func add(_ count: Int) -> Int64 {
        total.withLock { total in
            total += Int64(count)
            return total
        }
    }
}
