import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

@Suite("projection replay")
struct ProjectionTests {
    /// Drives many jobs through every kind of event from concurrent writers.
    func churn(_ store: FerryStore, db: TestDatabase, jobs: Int, workers: Int) async throws {
        let specs = (0..<jobs).map { index in
            StoreFixtures.fetchSpec(batch: "b\(index % 7)", queue: index % 3 == 0 ? "slow" : "default", priority: Int64(index % 5), maxAttempts: 3)
        }
        _ = try await store.enqueue(specs)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var generator = SystemRandomNumberGenerator()
                    var idle = 0
                    while idle < 3 {
                        let claimed = try await store.claim(worker: "w\(worker)", queues: ["default", "slow"], limit: 8)
                        if claimed.isEmpty {
                            idle += 1
                            try await Task.sleep(for: .milliseconds(20))
                            continue
                        }
                        idle = 0
                        _ = try await store.record(claimed.map { .progress($0, bytesDone: 500, session: .object(["id": .string("s"), "offset": .int(500)])) })
                        let outcomes = claimed.map { job -> JobOutcome in
                            switch Int.random(in: 0..<10, using: &generator) {
                            case 0: return .retry(job, error: "boom", at: Date())
                            case 1: return .deferred(job, reason: "429", until: Date())
                            case 2: return .released(job, reason: "shutdown")
                            case 3: return .failed(job, error: "bad")
                            default: return .succeeded(job, bytes: 1000)
                            }
                        }
                        _ = try await store.record(outcomes)
                    }
                }
            }
            group.addTask {
                for round in 0..<10 {
                    _ = try? await store.cancel(.batch("b\(round % 7)"), requestedBy: "chaos")
                    _ = try? await store.retry(.batch("b\((round + 3) % 7)"), requestedBy: "chaos")
                    try await Task.sleep(for: .milliseconds(15))
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("after heavy concurrent activity a full replay equals the projection")
    func replayMatchesAfterChurn() async throws {
        let db = try await TestDatabase.make("replay")
        let store = db.store(poolSize: 8)
        defer { store.client.close() }
        try await churn(store, db: db, jobs: 600, workers: 6)
        let events = try await db.query("SELECT count(*), count(DISTINCT type) FROM ferry.events").rows[0]
        #expect(try events.decode(Int.self, at: 0) > 2000)
        #expect(try events.decode(Int.self, at: 1) >= 9, "the churn exercised most event types")
        let report = try await store.verifyProjection()
        #expect(report.isClean, "\(report.text)")
        #expect(report.jobsChecked == 600)
        // Versions are contiguous per job.
        let gaps = try await db.query(
            "SELECT count(*) FROM (SELECT job_id FROM ferry.events GROUP BY job_id HAVING max(version) <> count(*)) g")
        #expect(try gaps.rows[0].decode(Int.self, at: 0) == 0)
    }

    @Test("a hand-edited projection row is caught, named with its column, and rebuild repairs it")
    func handEditCaught() async throws {
        let db = try await TestDatabase.make("tamper")
        let store = db.store()
        defer { store.client.close() }
        let ids = try await store.enqueue((0..<5).map { _ in StoreFixtures.fetchSpec(batch: "t") })
        let claimed = try await store.claim(worker: "w", queues: ["default"], limit: 2)
        _ = try await store.record(claimed.map { .succeeded($0, bytes: 1000) })
        #expect(try await store.verifyProjection().isClean)

        let victim = try #require(ids.map(\.jobID).first { id in !claimed.contains { $0.jobID == id } })
        // The owner can bypass the guard; that is exactly what verify exists to catch.
        try await db.query("UPDATE ferry.jobs SET bytes_done = 777, state = 'succeeded' WHERE job_id = $1::uuid", [victim])
        let report = try await store.verifyProjection()
        #expect(!report.isClean)
        #expect(report.differences.count == 1)
        #expect(report.differences.first?.jobID == victim)
        #expect(report.text.contains("bytes_done: stored 777, replayed 0"))
        #expect(report.text.contains(#"state: stored "succeeded", replayed "queued""#))

        let rebuilt = try await store.rebuildProjection()
        #expect(rebuilt == 5)
        #expect(try await store.verifyProjection().isClean)
        #expect(try await store.jobStatus(.job(victim))[0].state == "queued")
    }

    @Test("a projection row without events, and events without a row, are reported")
    func missingRows() async throws {
        let db = try await TestDatabase.make("missing")
        let store = db.store()
        defer { store.client.close() }
        let ids = try await store.enqueue([StoreFixtures.fetchSpec(), StoreFixtures.fetchSpec()])
        try await db.query("DELETE FROM ferry.jobs WHERE job_id = $1::uuid", [ids[0].jobID])
        let report = try await store.verifyProjection()
        #expect(report.text.contains("has events but no projection row"))
    }
}
