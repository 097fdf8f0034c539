import FerryStore

extension WorkerMetrics {
    static let accountTransfers = MetricSpec(
        base: "ferry_account_transfers", unit: "",
        help: "Running jobs of the account that still move bytes, fleet-wide: what its max_concurrent caps. Read from the database with ferry_queue_depth.")
    static let accountMaxConcurrent = MetricSpec(
        base: "ferry_account_max_concurrent", unit: "",
        help: "The account's cap on transfers at once across the fleet (ferry account update --max-concurrent).")
    static let accountNeedsLogin = MetricSpec(
        base: "ferry_account_needs_login", unit: "",
        help: "1 while the account holds its jobs until ferry account login (its token was refused or revoked), else 0.")

    /// Sets the account gauges from one read (the saturation of an account is transfers / max_concurrent).
    func accountLoad(_ rows: [AccountLoadRow]) {
        for row in rows {
            let labels = [("provider", row.provider), ("account", row.account)]
            gauge(Self.accountTransfers, labels).set(row.transfers)
            gauge(Self.accountMaxConcurrent, labels).set(row.maxConcurrent)
            gauge(Self.accountNeedsLogin, labels).set(Int64(row.needsLogin ? 1 : 0))
        }
    }
}
