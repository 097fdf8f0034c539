import Postgres

extension FerryStore {
    /// `WorkerStore.leaseAccountShare`: one statement (definition 525), one row written per renewal.
    public func leaseAccountShare(_ account: String, worker: String, demand: Double, lease: Duration) async throws -> AccountShareLease {
        let seconds = Double(lease.components.seconds) + Double(lease.components.attoseconds) / 1e18
        do {
            let rows = try await client.withConnection { connection in
                try connection.query(
                    "SELECT tps_limit, bwlimit, fraction, holders FROM ferry.lease_account_share($1, $2, $3::float8, $4::float8)",
                    [account, worker, demand, seconds]
                ).rows
            }
            guard let row = rows.first else { return AccountShareLease(requestsPerSecond: nil, bytesPerSecond: nil, fraction: 1, holders: 0) }
            return AccountShareLease(
                requestsPerSecond: try row.decode(Double?.self, at: 0), bytesPerSecond: try row.decode(Int64?.self, at: 1),
                fraction: try row.decode(Double.self, at: 2), holders: try row.decode(Int.self, at: 3))
        } catch {
            throw FerryStore.translate(error)
        }
    }
}
