import FerryStore
import Foundation

extension MemoryWorkerStore {
    /// `WorkerStore.leaseAccountShare` as definition 525 does it: expired leases dropped, the caller's renewed, its
    /// demand over the total of live leases.
    public func leaseAccountShare(_ account: String, worker: String, demand: Double, lease: Duration) async throws -> AccountShareLease {
        state.withLock { state in
            let now = state.now
            let known = state.accounts[account]
            guard let known, known.requestLimit != nil || known.bandwidthLimit != nil else {
                state.accountShares[account] = nil
                return AccountShareLease(requestsPerSecond: known?.requestLimit, bytesPerSecond: known?.bandwidthLimit, fraction: 1, holders: 0)
            }
            let demand = min(max(demand, 1), 1_000_000)
            var leases = state.accountShares[account, default: [:]].filter { $0.value.expires > now }
            leases[worker] = (demand, now.addingTimeInterval(min(max(Self.seconds(lease), 1), 60)))
            state.accountShares[account] = leases
            let total = leases.values.reduce(0) { $0 + $1.demand }
            return AccountShareLease(
                requestsPerSecond: known.requestLimit, bytesPerSecond: known.bandwidthLimit, fraction: demand / total, holders: leases.count)
        }
    }
}

extension MemoryWorkerStore {
    /// Ends `worker`'s leases at once, as if it had stopped renewing them a while ago.
    public func expireAccountShares(of worker: String) {
        state.withLock { state in
            let past = state.now.addingTimeInterval(-1)
            for account in state.accountShares.keys where state.accountShares[account]?[worker] != nil {
                state.accountShares[account]?[worker]?.expires = past
            }
        }
    }
}

extension MemoryWorkerStore {
    /// `ferry account update NAME --tps-limit --bwlimit` (nil removes a limit) on an account `setAccount` made.
    public func setAccountLimits(_ name: String, requestsPerSecond: Double?, bytesPerSecond: Int64?) {
        state.withLock { state in
            state.accounts[name]?.requestLimit = requestsPerSecond
            state.accounts[name]?.bandwidthLimit = bytesPerSecond
        }
    }
}

extension MemoryWorkerStore {
    /// `WorkerStore.accountLoad()`: transfers counted as the claim caps them.
    public func accountLoad() async throws -> [AccountLoadRow] {
        state.withLock { state in
            state.accounts.values.sorted { $0.name < $1.name }.prefix(FerryStore.accountLoadLimit).map { account in
                AccountLoadRow(
                    account: account.name, provider: account.provider,
                    transfers: Int64(state.jobs.values.count { $0.account == account.name && $0.isTransferring }),
                    maxConcurrent: Int64(account.maxConcurrent), needsLogin: account.status != "active")
            }
        }
    }
}
