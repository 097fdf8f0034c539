import Postgres

extension FerryStore {
    /// Accounts for metrics: at most ``accountLoadLimit`` of them, by name, each with its transfers counted through
    /// the running-jobs index (`ferry.account_transfers`), so the read stays small whatever the backlog.
    public func accountLoad() async throws -> [AccountLoadRow] {
        do {
            let rows = try await client.withConnection { connection in
                try connection.query(
                    """
                    SELECT a.name, a.provider, ferry.account_transfers(a.name), a.max_concurrent, a.status <> 'active'
                      FROM ferry.accounts a ORDER BY a.name LIMIT $1
                    """, [Self.accountLoadLimit]
                ).rows
            }
            return try rows.map { row in
                AccountLoadRow(
                    account: try row.decode(String.self, at: 0), provider: try row.decode(String.self, at: 1),
                    transfers: try row.decode(Int64.self, at: 2), maxConcurrent: try row.decode(Int64.self, at: 3),
                    needsLogin: try row.decode(Bool.self, at: 4))
            }
        } catch {
            throw FerryStore.translate(error)
        }
    }

    /// Accounts reported at most: metric labels stay bounded however many accounts an operator adds.
    public static let accountLoadLimit = 200
}
