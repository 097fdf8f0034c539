import Foundation
import Postgres

extension FerryReads {
    /// Finished jobs, failures and bytes per `stepSeconds` since `since` (`ferry.trends`), oldest bucket first;
    /// buckets with nothing finished are absent. Reads the rollups and the jobs finished after them.
    public func trends(since: Date, stepSeconds: Int, filter: TrendFilter = TrendFilter()) async throws -> [TrendRow] {
        do {
            return try await client.withConnection { connection in
                try connection.query(
                    """
                    SELECT \(TrendRow.columns)
                      FROM ferry.trends($1, make_interval(secs => $2), $3, $4, $5)
                    """, [since, stepSeconds, filter.queue, filter.account, filter.provider]
                ).rows.map(TrendRow.init(row:))
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// The queues, accounts and providers that finished jobs in the last week (`ferry.trend_keys`).
    public func trendKeys() async throws -> [TrendKey] {
        do {
            return try await client.withConnection { connection in
                try connection.query("SELECT queue, account, provider FROM ferry.trend_keys() ORDER BY 1, 2, 3", []).rows.map {
                    TrendKey(queue: try $0.decode(String.self, column: "queue"), account: try $0.decode(String.self, column: "account"),
                             provider: try $0.decode(String.self, column: "provider"))
                }
            }
        } catch {
            throw Self.translate(error)
        }
    }
}
