import FerryStore
import Foundation
import Synchronization

/// Paces one process's requests to each account at the account's `tps_limit` (`ferry account update NAME
/// --tps-limit N`): request slots are handed out 1/N seconds apart, and a caller whose slot lies ahead sleeps until
/// it. Per process: N workers may together send up to N times the limit, so set it to the account's budget divided
/// by the number of worker processes. The limit is read from `ferry.accounts.settings` at most every 5 seconds, so
/// an update reaches running workers without a restart.
public final class RequestPacer: Sendable {
    private struct Pace {
        var limit: Double?
        var readAt: ContinuousClock.Instant
        var nextSlot: ContinuousClock.Instant
    }

    private let store: FerryStore
    private let paces = Mutex<[String: Pace]>([:])
    private static let reread: Duration = .seconds(5)

    public init(store: FerryStore) {
        self.store = store
    }

    /// Waits for the account's next request slot (at once when it has no limit).
    public func awaitSlot(account: String) async throws {
        let now = ContinuousClock.now
        let known = paces.withLock { $0[account] }
        var limit = known?.limit
        if known == nil || now - known!.readAt >= Self.reread {
            limit = (try? await store.accounts.requestLimit(of: account)) ?? known?.limit
        }
        let slot = paces.withLock { paces -> ContinuousClock.Instant? in
            var pace = paces[account] ?? Pace(limit: limit, readAt: now, nextSlot: now)
            if known == nil || now - (known?.readAt ?? now) >= Self.reread { pace.readAt = now }
            pace.limit = limit
            defer { paces[account] = pace }
            guard let limit, limit > 0 else { return nil }
            let slot = max(now, pace.nextSlot)
            pace.nextSlot = slot + .nanoseconds(Int64(1e9 / limit))
            return slot
        }
        if let slot, slot > now { try await Task.sleep(until: slot, clock: .continuous) }
    }
}
