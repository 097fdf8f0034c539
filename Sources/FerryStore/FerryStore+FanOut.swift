import FerryCore
import Foundation
import Postgres

extension FerryStore {
    /// Enqueues the children a running job found and records its progress, in one transaction.
    ///
    /// Children join the parent's batch, queue, priority and attempt budget, and carry `parent` in their details.
    /// The parent's claim is locked first, so a worker that lost its claim enqueues nothing; children are keyed
    /// (`FanOutChild.idempotencyKey`), so a listing that crashed and runs again from an older cursor creates no
    /// duplicates. The progress event (with the listing cursor as `session`) commits with the children: a new
    /// attempt resumes after the last page whose children are safely queued.
    public func fanOut(_ children: [FanOutChild], from parent: ClaimedJob, progress: JobOutcome, now: Date = Date()) async throws -> FanOutAck {
        // Children keep the listing's order.
        var ids = UUIDv7Generator(random: SystemRandomNumberGenerator())
        let specs = children.map { child -> JobSpec in
            var details = child.details
            details["parent"] = .string(parent.jobID.uuidString.lowercased())
            var spec = JobSpec(
                jobID: ids.next(now: now), kind: child.kind, source: child.source, destination: child.destination,
                account: child.account, queue: parent.queue, batch: parent.batch, priority: 0,  // set from the parent's row below
                maxAttempts: Int64(parent.maxAttempts), runAt: nil, idempotencyKey: child.idempotencyKey,
                metadata: child.metadata, bytesTotal: child.bytesTotal, details: details)
            // Children join the parent's trace, under the attempt that found them.
            spec.traceparent = parent.traceparent
            return spec
        }
        var payload = progress.data
        payload["lease"] = .int(progress.lease)
        let data = JSONValue.object(payload).jsonText
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await client.withTransaction { connection -> FanOutAck in
                    let locked = try connection.query(
                        """
                        SELECT version, cancel_requested, priority FROM ferry.jobs
                         WHERE job_id = $1::uuid AND lease = $2 AND state = 'running' FOR UPDATE
                        """, [parent.jobID, parent.lease]).rows
                    guard let row = locked.first else { return FanOutAck(accepted: false, cancelRequested: false, created: 0) }
                    let version = try row.decode(Int64.self, column: "version")
                    let cancel = try row.decode(Bool.self, column: "cancel_requested")
                    let priority = try row.decode(Int64.self, column: "priority")
                    var prioritized = specs
                    for index in prioritized.indices { prioritized[index].priority = priority }
                    let outcomes = try Self.enqueue(prioritized, lines: nil, on: connection)
                    try connection.query(
                        "INSERT INTO ferry.events (job_id, version, type, data) VALUES ($1::uuid, $2, $3, $4::jsonb)",
                        [parent.jobID, version + 1, progress.type.rawValue, data])
                    return FanOutAck(accepted: true, cancelRequested: cancel, created: outcomes.count { $0.created })
                }
            } catch let error as PostgresError
                where error.sqlState == .uniqueViolation && error.constraint == "jobs_idempotency_key" && attempt < 5
            {
                continue
            } catch {
                throw Self.translate(error)
            }
        }
    }
}
