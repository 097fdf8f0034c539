import Foundation
import Postgres

extension FerryStore {
    /// The plans of the replay's statements (`EXPLAIN`) for the chunk that starts `skipEvents` events into the
    /// log: each must be an ordered index range, never a full scan or a large sort. For benchmarks and diagnosis.
    /// (Finding that chunk walks the index once; a replay itself never looks chunk bounds up.)
    public func replayPlans(skipEvents: Int = 0, chunkEvents: Int = 200_000) async throws -> [(statement: String, plan: String)] {
        try await client.withTransaction(isolation: .repeatableRead) { connection in
            let from = try connection.query(ReplayQueries.boundary, ["00000000-0000-0000-0000-000000000000", skipEvents])
                .rows.first?.decode(String.self, column: "boundary") ?? "00000000-0000-0000-0000-000000000000"
            let until = try connection.query(ReplayQueries.boundary, [from, chunkEvents]).rows.first?.decode(String.self, column: "boundary")
                ?? "ffffffff-ffff-ffff-ffff-ffffffffffff"
            try connection.query(ReplayQueries.setBounds, [from, until])
            try connection.query("SELECT set_config('ferry.replay_limit', $1, true)", [String(chunkEvents)])
            try connection.query(ReplayQueries.setIDs, ["{\(from),\(until)}"])
            func plan(_ sql: String, _ binds: [any PostgresBindable] = []) throws -> String {
                try connection.query(sql, binds).rows.map { try $0.decode(String.self, column: "QUERY PLAN") }.joined(separator: "\n")
            }
            return [
                ("chunk events", try plan("EXPLAIN " + ReplayQueries.eventsSelect(.limited))),
                ("chunk jobs", try plan("EXPLAIN " + ReplayQueries.jobsSelect(.between))),
                ("since: jobs after a position", try plan(
                    "EXPLAIN SELECT DISTINCT job_id FROM ferry.events WHERE position > (SELECT max(position) - 100000 FROM ferry.events) ORDER BY job_id")),
                ("since: events of listed jobs", try plan("EXPLAIN " + ReplayQueries.eventsSelect(.ids))),
            ]
        }
    }
}
