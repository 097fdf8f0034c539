import FerryStore
import Foundation
import Synchronization

/// Paces a process's requests to each account at the account's `tps_limit` (`ferry account update NAME
/// --tps-limit N`): request slots are handed out 1/rate seconds apart, and a caller whose slot lies ahead sleeps
/// until it.
///
/// In a worker the limit is the fleet's: the rate is this process's share of it (``AccountShares``), renewed every
/// second, so every process on every machine together stays within N. Elsewhere (the CLI listing a folder) the
/// process paces itself at N, read from `ferry.accounts.settings` at most every 5 seconds.
public final class RequestPacer: Sendable {
    private struct Pace {
        var limit: Double?
        var readAt: ContinuousClock.Instant
        var nextSlot: ContinuousClock.Instant
    }

    private let store: FerryStore
    private let shares: AccountShares?
    private let paces = Mutex<[String: Pace]>([:])
    private static let reread: Duration = .seconds(5)

    public init(store: FerryStore, shares: AccountShares? = nil) {
        self.store = store
        self.shares = shares
    }

    /// Waits for the account's next request slot (at once when it has no limit).
    public func awaitSlot(account: String) async throws {
        let now = ContinuousClock.now
        let limit = await limit(of: account, now: now)
        let slot = paces.withLock { paces -> ContinuousClock.Instant? in
            var pace = paces[account] ?? Pace(limit: limit, readAt: now, nextSlot: now)
            pace.limit = limit
            defer { paces[account] = pace }
            guard let limit, limit > 0 else { return nil }
            let slot = max(now, pace.nextSlot)
            pace.nextSlot = slot + .nanoseconds(Int64(1e9 / limit))
            return slot
        }
        if let slot, slot > now { try await Task.sleep(until: slot, clock: .continuous) }
    }

    /// The account's requests per second for this process now.
    private func limit(of account: String, now: ContinuousClock.Instant) async -> Double? {
        if let shares { return await shares.current(account)?.processRequestsPerSecond }
        let known = paces.withLock { $0[account] }
        guard known == nil || now - known!.readAt >= Self.reread else { return known?.limit }
        let limit = (try? await store.accounts.requestLimit(of: account)) ?? known?.limit
        paces.withLock { paces in
            if paces[account] != nil { paces[account]!.readAt = now }
        }
        return limit
    }
}
