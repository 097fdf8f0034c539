import FerryCore
import Foundation
import Postgres

extension FerryStore {
    /// Pauses (claims skip the queue; running jobs finish) or resumes a queue by appending to `ferry.queue_events`.
    /// Answers false when the queue was already in that state: nothing is appended then.
    public func setQueuePaused(_ queue: String, paused: Bool, reason: String?, by requester: String) async throws -> Bool {
        do {
            return try await client.withConnection { connection in
                try connection.query(
                    """
                    INSERT INTO ferry.queue_events (queue, type, data)
                    SELECT $1, CASE WHEN $2 THEN 'paused' ELSE 'resumed' END,
                           jsonb_strip_nulls(jsonb_build_object('reason', $3::text, 'by', $4::text))
                     WHERE coalesce((SELECT paused FROM ferry.queue_controls WHERE queue = $1), false) IS DISTINCT FROM $2
                    RETURNING position
                    """, [queue, paused, reason, requester]
                ).rows.count == 1
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// The queues paused now (`ferry.queue_controls`, a few rows): the `ferry_queue_paused` gauge, so that alerts on a
    /// waiting backlog leave alone a queue paused on purpose.
    public func pausedQueues() async throws -> Set<String> {
        do {
            return try await client.withConnection { connection in
                Set(try connection.query("SELECT queue FROM ferry.queue_controls WHERE paused").rows.map { try $0.decode(String.self, at: 0) })
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Whether `queue` is known: it has jobs, a live worker serves it, or it was paused or resumed before. A pause
    /// of a misspelled queue would otherwise succeed and stop nothing.
    public func queueIsKnown(_ queue: String) async throws -> Bool {
        do {
            return try await client.withConnection { connection in
                try connection.query(
                    """
                    SELECT EXISTS (SELECT 1 FROM ferry.queue_stats WHERE queue = $1)
                        OR EXISTS (SELECT 1 FROM ferry.queue_controls WHERE queue = $1)
                        OR EXISTS (SELECT 1 FROM ferry.workers WHERE $1 = ANY (queues)) AS known
                    """, [queue]
                ).rows[0].decode(Bool.self, column: "known")
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Every queue that was ever paused or resumed, with its current state.
    public func queueControls() async throws -> [QueueControl] {
        do {
            return try await client.withConnection { connection in
                try connection.query("SELECT queue, paused, changed_at, reason FROM ferry.queue_controls ORDER BY queue").rows.map {
                    QueueControl(
                        queue: try $0.decode(String.self, column: "queue"), paused: try $0.decode(Bool.self, column: "paused"),
                        changedAt: try $0.decode(PostgresTimestamp.self, column: "changed_at"),
                        reason: try $0.decode(String?.self, column: "reason"))
                }
            }
        } catch {
            throw Self.translate(error)
        }
    }
}
