import FerryCore
import Foundation
import Postgres

extension FerryStore {
    /// Cancels a job or every job of a batch.
    ///
    /// Queued jobs are cancelled at once; running jobs get `cancel_requested` (workers are notified on
    /// `ferry_cancel` and stop at their next step); finished jobs are left as they are.
    public func cancel(_ target: JobFilter, requestedBy: String) async throws -> [CommandOutcome] {
        try await command(
            target,
            eligible: "(state = 'queued' OR (state = 'running' AND NOT cancel_requested))",
            eventType: "CASE WHEN state = 'queued' THEN 'cancelled' ELSE 'cancel_requested' END",
            data: "jsonb_build_object('reason', 'cancelled by ' || $1)",
            requestedBy: requestedBy
        ) { type in type == "cancelled" ? .cancelled : .cancelRequested }
    }

    /// Puts a failed or cancelled job (or every such job of a batch) back into the queue with a `requeued` event.
    /// A discarded job goes back only when named (a job or a list of jobs): a batch retry leaves it discarded.
    /// Also takes the jobs matching a filter (``JobFilter/matching(batch:state:search:)``), with the batch's rules.
    public func retry(_ target: JobFilter, requestedBy: String) async throws -> [CommandOutcome] {
        try await command(
            target,
            eligible: target.isNamed ? "state IN ('failed', 'cancelled', 'discarded')" : "state IN ('failed', 'cancelled')",
            eventType: "'requeued'",
            data: "jsonb_build_object('by', $1::text)",
            requestedBy: requestedBy
        ) { _ in .requeued }
    }

    /// Gives up on a failed job (or every failed job of a batch) with a `discarded` event: it stays finished with
    /// its error, leaves the failures to act on and counts as discarded, not failed. Jobs in other states are left
    /// as they are (cancel ends a job that has not finished).
    public func discard(_ target: JobFilter, requestedBy: String) async throws -> [CommandOutcome] {
        try await command(
            target,
            eligible: "state = 'failed'",
            eventType: "'discarded'",
            data: "jsonb_build_object('by', $1::text)",
            requestedBy: requestedBy
        ) { _ in .discarded }
    }

    private func command(
        _ target: JobFilter, eligible: String, eventType: String, data: String, requestedBy: String,
        action: @escaping @Sendable (String) -> CommandOutcome.Action
    ) async throws -> [CommandOutcome] {
        // `$1` is who asked (in `data`); the filter's parameters follow.
        let (condition, filterBinds) = target.condition(from: 2)
        // Lock the candidates so a concurrent claim or finish cannot slip between reading and appending.
        let sql = """
            WITH target AS (
                SELECT job_id, version, state, cancel_requested FROM ferry.jobs
                 WHERE \(condition) AND \(eligible)
                 ORDER BY job_id FOR UPDATE
            )
            INSERT INTO ferry.events (job_id, version, type, data)
            SELECT job_id, version + 1, \(eventType), \(data) FROM target
            RETURNING job_id, type
            """
        let binds: [any PostgresBindable] = [requestedBy] + filterBinds
        let isSingle: Bool = if case .job = target { true } else { false }
        // Named jobs are each reported (unchanged ones with their state); a batch, queue or everything reports
        // only the jobs the command changed, so retrying a finished batch of 100,000 jobs lists none of them.
        let (ownCondition, ownBinds) = target.condition(from: 1)
        let (containerCondition, containerBinds) = target.container.condition(from: 1)
        do {
            return try await client.withTransaction { connection in
                var changed = [UUID: CommandOutcome.Action]()
                for row in try connection.query(sql, binds).rows {
                    changed[try row.decode(UUID.self, column: "job_id")] = action(try row.decode(String.self, column: "type"))
                }
                // Read after the append: the projection already holds each job's new state. Ids are UUIDv7, so
                // this is enqueue order.
                let all = target.isNamed
                    ? try connection.query("SELECT job_id, state FROM ferry.jobs WHERE \(ownCondition) ORDER BY job_id", ownBinds)
                    : try connection.query(
                        "SELECT job_id, state FROM ferry.jobs WHERE job_id = ANY ($1::uuid[]) ORDER BY job_id",
                        [PostgresArray(Array(changed.keys))])
                let exists = try !all.rows.isEmpty
                    || connection.query("SELECT 1 FROM ferry.jobs WHERE \(containerCondition) LIMIT 1", containerBinds).rows.count > 0
                if !exists {
                    throw FerryStoreError(
                        .notFound, isSingle ? "no such job" : "no jobs match",
                        fix: "check the id or batch name with ferry status")
                }
                return try all.rows.map { row in
                    let id = try row.decode(UUID.self, column: "job_id")
                    return CommandOutcome(jobID: id, action: changed[id] ?? .unchanged, state: try row.decode(String.self, column: "state"))
                }
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Appends one event with optimistic concurrency: it is stored only if the job's stream is at
    /// `expectedVersion`. Throws `.versionConflict` when another writer got there first.
    @discardableResult
    public func append(
        jobID: UUID, expectedVersion: Int, type: JobEventType, data: JSONValue = .object([:])
    ) async throws -> Int {
        let version = expectedVersion + 1
        do {
            try await client.withConnection { connection in
                _ = try connection.query(
                    "INSERT INTO ferry.events (job_id, version, type, data) VALUES ($1::uuid, $2, $3, $4::jsonb)",
                    [jobID, version, type.rawValue, data.jsonText])
            }
            return version
        } catch {
            throw Self.translate(error)
        }
    }
}
