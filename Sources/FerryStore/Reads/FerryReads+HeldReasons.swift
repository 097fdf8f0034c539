import FerryCore
import Foundation
import Postgres

extension FerryReads {
    /// Why each of `jobIDs` was last handed back held (its newest `released` event's reason, `code: message`), by job:
    /// a held job keeps no `last_error`, so this is where the code a provider held it with is read.
    public func heldReasons(_ jobIDs: [UUID]) async throws -> [UUID: String] {
        guard !jobIDs.isEmpty else { return [:] }
        let sql = """
            SELECT DISTINCT ON (job_id) job_id, data->>'reason' AS reason FROM ferry.events
             WHERE job_id = ANY($1::uuid[]) AND type = 'released' AND data ? 'reason'
             ORDER BY job_id, version DESC
            """
        do {
            return try await client.withConnection { connection in
                var reasons = [UUID: String]()
                for row in try connection.query(sql, [PostgresArray(jobIDs)]).rows {
                    reasons[try row.decode(UUID.self, column: "job_id")] = try row.decode(String.self, column: "reason")
                }
                return reasons
            }
        } catch {
            throw Self.translate(error)
        }
    }
}
