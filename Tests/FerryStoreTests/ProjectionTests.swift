import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

@Suite("projection replay", .tags(.postgres))
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
                            // A worker's idle poll: three empty ones 20 ms apart end the churn.
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
                    _ = try? await store.discard(.batch("b\((round + 5) % 7)"), requestedBy: "chaos")
                    // Spreads the commands over the workers' churn (time is the point).
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
        let report = try await store.projection.verify()
        #expect(report.isClean, "\(report.text)")
        #expect(report.jobsChecked == 600)
        let single = db.store(poolSize: 1)
        defer { single.client.close() }
        let sequential = try await single.projection.verify(chunkEvents: 7)
        #expect(sequential.isClean && sequential.jobsChecked == 600 && sequential.eventsReplayed == report.eventsReplayed)
        // Small chunks: many chunk boundaries, one job alone larger than a chunk, the same answer.
        for chunk in [1, 7, 500] {
            let chunked = try await store.projection.verify(chunkEvents: chunk)
            #expect(chunked.isClean && chunked.jobsChecked == 600 && chunked.eventsReplayed == report.eventsReplayed, "\(chunked.text)")
        }
        // A rebuild in small chunks writes back exactly the rows the triggers made.
        let before = try await db.query("SELECT md5(string_agg(j::text, '|' ORDER BY job_id)) FROM ferry.jobs j").rows[0].decode(String.self, at: 0)
        #expect(try await store.projection.rebuild(chunkEvents: 13) == 600)
        let after = try await db.query("SELECT md5(string_agg(j::text, '|' ORDER BY job_id)) FROM ferry.jobs j").rows[0].decode(String.self, at: 0)
        #expect(before == after)
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
        #expect(try await store.projection.verify().isClean)

        let victim = try #require(ids.map(\.jobID).first { id in !claimed.contains { $0.jobID == id } })
        // The owner can bypass the guard; that is exactly what verify exists to catch.
        try await db.query("UPDATE ferry.jobs SET bytes_done = 777, state = 'succeeded' WHERE job_id = $1::uuid", [victim])
        let report = try await store.projection.verify()
        #expect(!report.isClean)
        #expect(report.differences.count == 1)
        #expect(report.differences.first?.jobID == victim)
        #expect(report.text.contains("bytes_done: stored 777, replayed 0"))
        #expect(report.text.contains(#"state: stored "succeeded", replayed "queued""#))

        let rebuilt = try await store.projection.rebuild()
        #expect(rebuilt == 5)
        #expect(try await store.projection.verify().isClean)
        #expect(try await store.reads.jobStatus(.job(victim))[0].state == "queued")
    }

    @Test("a projection row without events, and events without a row, are reported")
    func missingRows() async throws {
        let db = try await TestDatabase.make("missing")
        let store = db.store()
        defer { store.client.close() }
        let ids = try await store.enqueue([StoreFixtures.fetchSpec(), StoreFixtures.fetchSpec()])
        try await db.query("DELETE FROM ferry.jobs WHERE job_id = $1::uuid", [ids[0].jobID])
        let report = try await store.projection.verify()
        #expect(report.text.contains("has events but no projection row"))

        // A row without events: copy a job's row under a new id.
        let orphan = UUIDv7.make()
        try await db.query("INSERT INTO ferry.jobs SELECT (jsonb_populate_record(j, jsonb_build_object('job_id', $1::uuid))).* FROM ferry.jobs j WHERE job_id = $2::uuid",
                           [orphan, ids[1].jobID])
        let both = try await store.projection.verify(chunkEvents: 1)
        #expect(both.differences.count == 2)
        #expect(both.differences.contains { 
            guard case .missingFromProjection = $0.kind else { return false }
            return $0.jobID == ids[0].jobID
        })
        #expect(both.differences.contains { 
            guard case .missingEvents = $0.kind else { return false }
            return $0.jobID == orphan
        })
        #expect(both.text.contains("job \(orphan.uuidString.lowercased()): projection row without any events"))
        #expect(both.jobsChecked == 3)
        // The stored rows streamed on a second connection (a pool of 2 or more) or read chunk by chunk on the one
        // connection (a pool of 1): the same report, whatever the chunk size.
        let single = db.store(poolSize: 1)
        defer { single.client.close() }
        for chunk in [1, 2, 200_000] {
            let streamed = try await store.projection.verify(chunkEvents: chunk)
            let sequential = try await single.projection.verify(chunkEvents: chunk)
            #expect(streamed.text == both.text && sequential.text == both.text, "chunk \(chunk)")
        }
        #expect(try await store.projection.rebuild() == 2)
        #expect(try await store.projection.verify().isClean)
    }

    @Test("an event the fold refuses is reported with its version and SQLSTATE; rebuild refuses to fold it")
    func refusedEventReported() async throws {
        let db = try await TestDatabase.make("refused")
        let store = db.store()
        defer { store.client.close() }
        let ids = try await store.enqueue([StoreFixtures.fetchSpec(), StoreFixtures.fetchSpec()]).map(\.jobID)
        // The owner slips an event past the triggers: a progress on a queued job (stale lease).
        try await db.query("ALTER TABLE ferry.events DISABLE TRIGGER USER")
        try await db.query(#"INSERT INTO ferry.events (job_id, version, type, data) VALUES ($1::uuid, 2, 'progress', '{"lease": 0}')"#, [ids[1]])
        try await db.query("ALTER TABLE ferry.events ENABLE TRIGGER USER")
        let report = try await store.projection.verify()
        #expect(report.differences.count == 1)
        #expect(report.differences.first?.jobID == ids[1])
        #expect(report.text.contains("event version 2 (progress) is refused by the fold: FY001"), "\(report.text)")
        await #expect(throws: ProjectionReplayError.self) { try await store.projection.rebuild() }
        #expect(try await db.query("SELECT count(*) FROM ferry.jobs").rows[0].decode(Int.self, at: 0) == 2, "rolled back")
    }

    @Test("--since checks only jobs with an event after the cut-off, by position or by time", .tags(.process))
    func sinceChecksRecentJobs() async throws {
        let db = try await TestDatabase.make("since")
        let store = db.store()
        defer { store.client.close() }
        try await db.query("CREATE INDEX IF NOT EXISTS events_recorded_at_brin ON ferry.events USING brin (recorded_at)")
        let old = try await store.enqueue((0..<3).map { StoreFixtures.fetchSpec(queue: $0 == 0 ? "slow" : "default") }).map(\.jobID)
        let cut = try await db.query("SELECT max(position), now() FROM ferry.events").rows[0]
        let position = try cut.decode(Int64.self, at: 0)
        // The server's clock between the two enqueues (events carry its transaction times): no sleep needed.
        let midpoint = try await db.query("SELECT clock_timestamp() AS midpoint").rows[0].decode(Date.self, column: "midpoint")
        let recent = try await store.enqueue((0..<2).map { _ in StoreFixtures.fetchSpec() }).map(\.jobID)
        // An old job touched after the cut-off is recent too: its whole history is replayed.
        let claimed = try await store.claim(worker: "w", queues: ["slow"], limit: 1)
        #expect(claimed.first?.jobID == old[0])

        // Edit one old job (no recent event) and one recent job.
        try await db.query("UPDATE ferry.jobs SET priority = 9 WHERE job_id = ANY (ARRAY[$1::uuid, $2::uuid])", [old[1], recent[0]])
        for scope in [ProjectionScope.afterPosition(position), .recordedSince(midpoint)] {
            let report = try await store.projection.verify(scope: scope)
            #expect(report.jobsChecked == 3, "\(scope): old[0] (claimed) and the two recent jobs")
            #expect(report.differences.map(\.jobID) == [recent[0]], "\(report.text)")
            #expect(report.text.contains("checked \(scope.summary), up to position"))
        }
        let full = try await store.projection.verify()
        #expect(Set(full.differences.map(\.jobID)) == [old[1], recent[0]])

        // The CLI end to end: exit 1 naming only the recent job; a bad --since is a usage error.
        let cli = try await FerryProcess.run(["projection", "verify", "--since", String(position)], databaseURL: db.url)
        #expect(cli.status == 1, "\(cli.stdout)\(cli.stderr)")
        #expect(cli.stdout.contains("checked jobs with an event after position \(position)"))
        #expect(cli.stdout.contains(recent[0].uuidString.lowercased()) && !cli.stdout.contains(old[1].uuidString.lowercased()))
        #expect(cli.stdout.contains("priority: stored 9, replayed 0"), "\(cli.stdout)")
        let relative = try await FerryProcess.run(["projection", "verify", "--since", "1h"], databaseURL: db.url)
        #expect(relative.status == 1 && relative.stdout.contains("recorded at or after"), "\(relative.stdout)")
        let bad = try await FerryProcess.run(["projection", "verify", "--since", "yesterday"], databaseURL: db.url)
        #expect(bad.status != 0 && bad.status != 1)
        #expect(try await store.projection.rebuild() == 5)
        let clean = try await FerryProcess.run(["projection", "verify", "--since", "2000-01-01T00:00:00Z"], databaseURL: db.url)
        #expect(clean.status == 0 && clean.stdout.contains("projection verified: 5 jobs"), "\(clean.stdout)")
    }

    @Test("--since parses positions, RFC 3339 times and durations ago")
    func sinceParsing() throws {
        let now = Date(timeIntervalSince1970: 1_000_000)
        #expect(ProjectionScope(since: "42", now: now) == .afterPosition(42))
        #expect(ProjectionScope(since: "10m", now: now) == .recordedSince(now.addingTimeInterval(-600)))
        #expect(ProjectionScope(since: "2h", now: now) == .recordedSince(now.addingTimeInterval(-7200)))
        #expect(ProjectionScope(since: "1d", now: now) == .recordedSince(now.addingTimeInterval(-86400)))
        #expect(ProjectionScope(since: "1970-01-01T00:00:10Z", now: now) == .recordedSince(Date(timeIntervalSince1970: 10)))
        #expect(ProjectionScope(since: "1970-01-01T01:00:10.5+01:00", now: now) == .recordedSince(Date(timeIntervalSince1970: 10.5)))
        for bad in ["", "m", "-5", "10x", "yesterday", "2025-13-01T00:00:00Z"] {
            #expect(ProjectionScope(since: bad, now: now) == nil, "\(bad)")
        }
    }
}
