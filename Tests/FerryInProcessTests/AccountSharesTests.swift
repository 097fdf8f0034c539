import FerryStore
import FerryTestSupport
import FerryTesting
import FerryWorker
import Testing

/// `AccountShares`: two processes (two instances on one store) split an account's budget by their demand, renew
/// at most once a second, and a process that stopped leaves its share to the other once its lease lapses.
@Suite("account shares of a fleet budget", .tags(.fast))
struct AccountSharesTests {
    @Test("shares follow demand: 3 jobs against 1 is three quarters; a stopped process's share returns; no limit, no lease")
    func sharesFollowDemand() async throws {
        let store = MemoryWorkerStore()
        store.setAccount(MemoryAccount(name: "capped"))
        store.setAccountLimits("capped", requestsPerSecond: 20, bytesPerSecond: 4_000_000)
        store.setAccount(MemoryAccount(name: "free"))
        let (busy, quiet) = (AccountShares(store: store, worker: "busy"), AccountShares(store: store, worker: "quiet"))
        for _ in 0..<3 { busy.begin("capped") }
        quiet.begin("capped")
        // The busy process leased first (alone: everything), then the quiet one: a quarter.
        #expect(await busy.current("capped")?.fraction == 1)
        let quietLease = try #require(await quiet.current("capped"))
        #expect(quietLease.fraction == 0.25 && quietLease.processRequestsPerSecond == 5)
        // Within the renewal period the busy process keeps what it had, without asking the store again.
        #expect(await busy.current("capped")?.fraction == 1)

        // The busy process's jobs end; the demand it reports is its peak since the last renewal, then what runs.
        for _ in 0..<3 { busy.end("capped") }
        store.expireAccountShares(of: "busy")
        try await waitForRenewal(quiet, "capped", fraction: 1)
        #expect(await free(quiet))
    }

    /// The quiet process, renewing each period, sees `fraction` once the store answers it.
    private func waitForRenewal(_ shares: AccountShares, _ account: String, fraction: Double) async throws {
        try await eventually(timeout: .seconds(300), "\(account)'s share to become \(fraction)") {
            await shares.current(account)?.fraction == fraction
        }
    }

    private func free(_ shares: AccountShares) async -> Bool {
        guard let lease = await shares.current("free") else { return false }
        return !lease.isLimited && lease.fraction == 1 && lease.holders == 0
    }
}
