/// Paces a response body to ``FaultConfiguration/downloadBytesPerSecond``, or the reading of an upload's
/// request body to ``FaultConfiguration/uploadBytesPerSecond``.
///
/// The rate is read again before every piece, so a test can slow a transfer down (to kill
/// the client mid-body) or lift the limit while the body is still moving.
struct BandwidthThrottle {
    /// Largest piece read from disk and written in one go when there is no limit.
    static let unlimitedPieceSize = 1 << 20

    private let currentRate: @Sendable () -> Int64
    private var rate: Int64 = 0
    private var windowStart = ContinuousClock.now
    private var windowBytes: Int64 = 0

    init(rate currentRate: @escaping @Sendable () -> Int64) {
        self.currentRate = currentRate
    }

    /// Size of the next piece: about a twentieth of a second's worth under a limit (so the
    /// bytes arrive in many small pieces), otherwise 1 MiB.
    mutating func nextPieceSize() -> Int {
        let latest = max(0, currentRate())
        if latest != rate {
            // A new rate starts a new window, so bytes sent earlier do not count against it.
            rate = latest
            windowStart = .now
            windowBytes = 0
        }
        guard rate > 0 else { return Self.unlimitedPieceSize }
        return Int(max(1, min(64 * 1024, rate / 20)))
    }

    /// Waits until `bytes` more have been "on the wire" long enough for the current rate.
    mutating func didSend(_ bytes: Int) async throws {
        guard rate > 0 else { return }
        windowBytes += Int64(bytes)
        let due = windowStart + .seconds(Double(windowBytes) / Double(rate))
        if due > .now { try await Task.sleep(until: due, clock: .continuous) }
    }
}
