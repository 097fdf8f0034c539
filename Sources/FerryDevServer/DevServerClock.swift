import Foundation
import Synchronization

/// The dev server's notion of "now" for token and authorization-code lifetimes: the wall clock, moved ahead by
/// tests that check expiry (``advance(by:)``) instead of sleeping through a lifetime.
public final class DevServerClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)

    public init() {}

    /// Seconds since 1970, as the server sees them.
    public var now: TimeInterval { Date().timeIntervalSince1970 + offset.withLock { $0 } }

    /// Moves the server's time forward: every token and code ages by `seconds` at once.
    public func advance(by seconds: TimeInterval) {
        offset.withLock { $0 += max(0, seconds) }
    }
}
