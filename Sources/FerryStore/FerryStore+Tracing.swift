import FerryCore
import Foundation
import Postgres

extension FerryStore {
    /// Trace facts of freshly claimed jobs, in one statement (only called with tracing on).
    ///
    /// Reads each job's `enqueued` event (primary key) and, for a job claimed before, the events of the previous
    /// claim (its lease is this one's minus one): `claimed`, `rescued` and the last progress carrying a span id.
    /// Those are a job's own events, found through the `(job_id, version)` key; no migration or view change.
    public func traceFacts(for jobs: [ClaimedJob]) async throws -> [UUID: JobTraceFacts] {
        guard !jobs.isEmpty else { return [:] }
        let sql = """
            SELECT e.job_id, e.type, e.data->>'traceparent' AS traceparent, e.data->>'worker' AS worker,
                   e.data->>'span_id' AS span_id, (e.data->>'bytes_done')::bigint AS bytes_done, e.recorded_at
              FROM unnest($1::uuid[], $2::bigint[]) AS u(job_id, lease)
              JOIN ferry.events e ON e.job_id = u.job_id
             WHERE e.version = 1
                OR (u.lease > 1 AND e.type IN ('claimed', 'rescued', 'progress')
                    AND e.data->>'lease' = (u.lease - 1)::text)
             ORDER BY e.job_id, e.version
            """
        let binds: [any PostgresBindable] = [PostgresArray(jobs.map(\.jobID)), PostgresArray(jobs.map(\.lease))]
        struct Partial {
            var traceparent: TraceParent?
            var worker: String?
            var claimedAt: Date?
            var rescuedAt: Date?
            var spanID: String?
            var bytesDone: Int64?
        }
        do {
            let rows = try await client.withConnection { connection in try connection.query(sql, binds).rows }
            var partial = [UUID: Partial]()
            for row in rows {
                let jobID = try row.decode(UUID.self, column: "job_id")
                let at = try row.decode(PostgresTimestamp.self, column: "recorded_at").date
                var facts = partial[jobID] ?? Partial()
                switch try row.decode(String.self, column: "type") {
                case "enqueued": facts.traceparent = try row.decode(String?.self, column: "traceparent").flatMap(TraceParent.init)
                case "claimed":
                    facts.worker = try row.decode(String?.self, column: "worker")
                    facts.claimedAt = at
                case "rescued": facts.rescuedAt = at
                default:
                    if let span = try row.decode(String?.self, column: "span_id") { facts.spanID = span }
                    if let bytes = try row.decode(Int64?.self, column: "bytes_done") { facts.bytesDone = bytes }
                }
                partial[jobID] = facts
            }
            var result = [UUID: JobTraceFacts]()
            for job in jobs {
                let facts = partial[job.jobID] ?? Partial()
                var lost: JobTraceFacts.LostAttempt?
                if let claimedAt = facts.claimedAt, let rescuedAt = facts.rescuedAt {
                    lost = JobTraceFacts.LostAttempt(
                        attempt: job.attempt - 1, worker: facts.worker, claimedAt: claimedAt, rescuedAt: rescuedAt,
                        spanID: facts.spanID, bytesDone: facts.bytesDone)
                }
                result[job.jobID] = JobTraceFacts(traceparent: facts.traceparent, lostAttempt: lost)
            }
            return result
        } catch {
            throw Self.translate(error)
        }
    }
}
