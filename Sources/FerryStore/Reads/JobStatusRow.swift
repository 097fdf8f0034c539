import FerryCore
import Foundation
import Postgres

/// One row of `ferry.job_status`.
public struct JobStatusRow: Sendable, Hashable {
    public var jobID: UUID
    public var kind: String
    public var queue: String
    public var batch: String?
    public var status: String
    public var state: String
    public var attempt: Int
    public var maxAttempts: Int
    public var priority: Int
    public var source: String
    public var destination: String
    public var account: String?
    public var bytesDone: Int64
    public var bytesTotal: Int64?
    public var percent: String?
    public var lastError: String?
    public var worker: String?
    public var metadata: String?
    public var runAt: PostgresTimestamp
    public var enqueuedAt: PostgresTimestamp
    public var startedAt: PostgresTimestamp?
    public var finishedAt: PostgresTimestamp?
    public var updatedAt: PostgresTimestamp
    public var eventCount: Int

    /// The row as JSON (for `--json` output). One name for where the job is, `state` (queued, running, succeeded,
    /// failed, cancelled, discarded: what the views filter on); what a person reads as its status beyond that says
    /// what it means: `waiting` (a queued job's `held`, `retrying` or `scheduled`, else null) and
    /// `cancel_requested` (a running job told to stop). Two near-synonyms, `state` and `status`, were one too many.
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "job_id": .string(jobID.uuidString.lowercased()), "kind": .string(kind), "queue": .string(queue),
            "state": .string(state), "attempt": .int(Int64(attempt)),
            "max_attempts": .int(Int64(maxAttempts)), "priority": .int(Int64(priority)), "source": .string(source),
            "destination": .string(destination), "bytes_done": .int(bytesDone), "run_at": .string(runAt.iso8601),
            "enqueued_at": .string(enqueuedAt.iso8601), "updated_at": .string(updatedAt.iso8601),
            "event_count": .int(Int64(eventCount)),
        ]
        object["waiting"] = state == "queued" && ["held", "retrying", "scheduled"].contains(status) ? .string(status) : .null
        object["cancel_requested"] = .bool(status == "cancelling")
        object["batch"] = batch.map { .string($0) } ?? .null
        object["account"] = account.map { .string($0) } ?? .null
        object["bytes_total"] = bytesTotal.map { .int($0) } ?? .null
        object["percent"] = percent.flatMap(Double.init).map { .double($0) } ?? .null
        object["last_error"] = lastError.map { .string($0) } ?? .null
        object["worker"] = worker.map { .string($0) } ?? .null
        object["metadata"] = metadata.flatMap { try? JSONValue.parse($0) } ?? .null
        object["started_at"] = startedAt.map { .string($0.iso8601) } ?? .null
        object["finished_at"] = finishedAt.map { .string($0.iso8601) } ?? .null
        return .object(object)
    }
}
