import FerryCore
import FerryStore
import Logging
import FerryTestSupport
import Foundation
import Postgres

/// Jobs in every state, for archive tests.
enum ArchiveFixtures {
    static func spec(batch: String?, queue: String = "default", key: String? = nil) -> JobSpec {
        JobSpec(
            jobID: UUIDv7.make(), kind: .fetch, source: "https://example.com/\(UUID().uuidString).jpg",
            destination: "/srv/in/", account: nil, queue: queue, batch: batch, priority: 0, maxAttempts: 3,
            runAt: nil, idempotencyKey: key, metadata: .object(["title": .string("ünï ☃ \"quoted\"\ttab")]),
            bytesTotal: 1000, details: [:])
    }

    /// `finished` jobs of batch "done" driven to succeeded, failed and discarded (three more cancelled) (with retries and progress on
    /// the way), plus one batch "open" with a finished and a queued job and `unfinished` loose queued jobs.
    static func populate(_ store: FerryStore, finished: Int, unfinished: Int = 3) async throws {
        _ = try await store.enqueue((0..<finished).map { index in spec(batch: "done", key: "k\(index)") })
        // Three more of "done" wait in a queue nobody works, and are cancelled at the end.
        _ = try await store.enqueue((0..<3).map { _ in spec(batch: "done", queue: "later") })
        _ = try await store.enqueue([spec(batch: "open"), spec(batch: "open", queue: "later")])
        _ = try await store.enqueue((0..<unfinished).map { _ in spec(batch: nil, queue: "later") })
        // One job of "open" finishes; the other stays queued (nobody claims "later"), so neither may be archived.
        var round = 0
        while true {
            let claimed = try await store.claim(worker: "w", queues: ["default"], limit: 50)
            if claimed.isEmpty { break }
            _ = try await store.record(claimed.map { .progress($0, bytesDone: 400, session: .object(["offset": .int(400)])) })
            let outcomes = claimed.enumerated().map { index, job -> JobOutcome in
                if round == 0 && index % 5 == 0 { return .retry(job, error: "transient", at: Date()) }
                if job.batch == "open" { return .succeeded(job, bytes: 1000) }
                switch index % 4 {
                case 1: return .failed(job, error: "bad file")
                // The destination held it already: succeeded, nothing moved, counted apart in the batch.
                case 2: return .succeeded(job, bytes: 0, result: .object(["skipped": .string("unchanged")]))
                default: return .succeeded(job, bytes: 1000)
                }
            }
            _ = try await store.record(outcomes)
            round += 1
        }
        _ = try await store.cancel(.batch("done"), requestedBy: "test")
        // Four failed jobs are discarded: finished too, archived and restored with the rest.
        let failed = try await store.reads.failureSample(limit: 4).map(\.jobID)
        _ = try await store.discard(.jobs(failed), requestedBy: "test")
    }

    /// Every event as text, for before/after comparisons.
    static func eventDump(_ db: TestDatabase) async throws -> [String] {
        try await db.query("SELECT to_jsonb(e)::text FROM ferry.events e ORDER BY position").rows.map {
            try $0.decode(String.self, at: 0)
        }
    }

    static func jobDump(_ db: TestDatabase) async throws -> [String] {
        try await db.query("SELECT to_jsonb(j)::text FROM ferry.jobs j ORDER BY job_id").rows.map {
            try $0.decode(String.self, at: 0)
        }
    }

    static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-archive-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A quiet logger: the archiver logs each file at info level.
    static var logger: Logger {
        var logger = Logger(label: "test.archive")
        logger.logLevel = .warning
        return logger
    }
}
