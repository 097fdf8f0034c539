import FerryCore
import FerryTestSupport
import Foundation
import Logging
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The hidden `.NAME.ferry-JOB.part` files of fetches: removed when the job ends for good (cancelled, failed for
/// good), kept for a later attempt otherwise, and on `ferry retry` reused only where the job's cursor still
/// matches them. A cancel in process; real workers, a real dev server and `kill -9` for the rest (`.process`).
@Suite("Leftover partial files", .tags(.postgres))
struct FetchLeftoverTests {
    static let size: Int64 = 24 * 1024 * 1024 + 7

    /// Hidden temporary files in `dir`.
    static func partFiles(_ dir: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".part") }.sorted()
    }

    /// Waits until every job of `destinations` has recorded a durable offset.
    static func waitForCheckpoints(_ db: TestDatabase, _ destinations: [String]) async throws {
        try await eventually(timeout: .seconds(300), interval: .milliseconds(100), "a checkpoint of every download") {
            try await offsets(db, destinations).values.filter { $0 > 0 }.count == destinations.count
        }
    }

    /// The recorded durable offsets of the jobs writing `destinations`.
    static func offsets(_ db: TestDatabase, _ destinations: [String]) async throws -> [String: Int64] {
        let list = JSONValue.array(destinations.map(JSONValue.string)).jsonText
        let rows = try await db.query(
            "SELECT destination, coalesce((session->>'offset')::bigint, 0) FROM ferry.jobs WHERE destination IN (SELECT jsonb_array_elements_text($1::jsonb))",
            [list]).rows
        var offsets = [String: Int64]()
        for row in rows { offsets[try row.decode(String.self, at: 0)] = try row.decode(Int64.self, at: 1) }
        return offsets
    }

    static func state(_ db: TestDatabase, _ jobID: String) async throws -> String {
        try await db.query("SELECT state FROM ferry.jobs WHERE job_id = $1::uuid", [jobID]).rows[0].decode(String.self, at: 0)
    }

    static func ferry(_ db: TestDatabase, _ arguments: [String]) async throws {
        let result = try await FerryProcess.run(arguments, databaseURL: db.url)
        #expect(result.status == 0, "ferry \(arguments.joined(separator: " ")): \(result.stdout)\(result.stderr)")
    }

    @Test("a fetch cancelled while it runs leaves no .part file; ferry retry then fetches the whole file again", .tags(.postgres))
    func cancelWhileRunning() async throws {
        try await InProcessFleet.run("leftover_cancel") { fleet in try await Self.cancelWhileRunning(fleet) }
    }

    /// In process: the worker, the dev server, and `ferry cancel` / `ferry retry` as the store calls they make.
    static func cancelWhileRunning(_ fleet: InProcessFleet) async throws {
        let server = fleet.server, db = fleet.db
        let dir = try temporaryFolder("leftover-cancel")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sha = try await URLFetchTests.webFile(server, "big/movie.bin", size: Self.size, seed: 5)
        try await server.setFaults(["download_bytes_per_second": .int(128 << 10)])  // minutes: a busy test task still cancels mid-transfer
        let job = try await fleet.enqueue(.fetch, server.baseURL + "/web/big/movie.bin", to: dir + "/movie.bin")
        let id = try #require(UUID(uuidString: job))
        let logs = LogRecorder()
        var logger = logs.logger(label: "ferry.worker")
        logger.logLevel = .info
        let worker = try fleet.worker("leftover-cancel", logger: logger)

        try await Self.waitForCheckpoints(db, [dir + "/movie.bin"])
        #expect(try Self.partFiles(dir).count == 1, "the running download writes a hidden .part file")
        _ = try await fleet.store.cancel(.job(id), requestedBy: "test")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(100), "the job to be cancelled") {
            try await Self.state(db, job) == "cancelled"
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == [], "no .part file and no target after the cancel")
        #expect(logs.all.contains { $0.contains("job cancelled on request") })

        // The cursor still names an offset, but its bytes are gone: the retry starts from zero.
        try await server.setFaults([:])
        _ = try await fleet.store.retry(.job(id), requestedBy: "test")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the retried fetch to succeed") {
            try await Self.state(db, job) == "succeeded"
        }
        try await fleet.stop([worker])
        #expect(try DropboxAccounts.sha256(dir + "/movie.bin") == sha)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["movie.bin"])
        let starts = try await URLFetchTests.rangeStarts(server, "/web/big/movie.bin")
        #expect(starts.count >= 2 && starts.allSatisfy { $0 == 0 }, "the retry fetched the whole file again: \(starts)")
    }

    @Test(
        "fetches that fail for good after bytes arrived (404, attempts exhausted on 503) leave no .part file",
        .tags(.process))
    func failedForGood() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("leftover_failed")
        let dir = try temporaryFolder("leftover-failed")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (index, name) in ["gone.bin", "flaky.bin"].enumerated() {
            try await URLFetchTests.webFile(server, "big/\(name)", size: Self.size, seed: Int64(10 + index))
        }
        try await server.setFaults(["download_bytes_per_second": .int(1 << 19)])  // slow: a busy test task still kills mid-transfer
        try await URLFetchTests.enqueue(db, server.baseURL + "/web/big/gone.bin", to: dir + "/gone.bin")
        try await URLFetchTests.enqueue(db, server.baseURL + "/web/big/flaky.bin", to: dir + "/flaky.bin", ["--max-attempts", "2"])

        // First attempts: killed once both have durable bytes, which stay for the next attempt.
        let victim = try TestWorker.transfers(db, name: "victim", ["--concurrency", "2"])
        try await Self.waitForCheckpoints(db, [dir + "/gone.bin", dir + "/flaky.bin"])
        victim.signal(SIGKILL)
        _ = try await victim.waitForExit()
        #expect(try Self.partFiles(dir).count == 2, "a killed attempt keeps its .part file for the next one")

        for (path, status) in [("big/gone.bin", 404), ("big/flaky.bin", 503)] {
            _ = try await server.request("POST", "/__dev/web/status", json: .object(["path": .string(path), "status": .int(Int64(status))]))
        }
        let survivor = try TestWorker.transfers(db, name: "survivor", ["--concurrency", "2"])
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "both fetches to fail") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'failed'") == 2
        }
        try await URLFetchTests.stop([survivor])
        let gone = try await URLFetchTests.job(db, destination: dir + "/gone.bin")
        #expect(gone.error?.contains("404") == true, "\(gone.error ?? "")")
        let flaky = try await URLFetchTests.job(db, destination: dir + "/flaky.bin")
        #expect(flaky.error?.contains("503") == true && flaky.error?.contains("attempts exhausted") == true, "\(flaky.error ?? "")")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == [], "no .part file of either job is left")
    }

    @Test(
        "ferry retry of a job cancelled while its worker was dead reuses its .part file when the cursor matches, else starts over",
        .tags(.process))
    func retryReusesMatchingPart() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("leftover_retry")
        let dir = try temporaryFolder("leftover-retry")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var sha = [String: String]()
        for (index, name) in ["kept.bin", "stale.bin"].enumerated() {
            sha[name] = try await URLFetchTests.webFile(server, "big/\(name)", size: Self.size, seed: Int64(20 + index))
        }
        try await server.setFaults(["download_bytes_per_second": .int(1 << 19)])  // slow: a busy test task still kills mid-transfer
        for name in ["kept.bin", "stale.bin"] {
            try await URLFetchTests.enqueue(db, server.baseURL + "/web/big/\(name)", to: dir + "/" + name, ["--batch", "trip"])
        }
        let victim = try TestWorker.transfers(db, name: "victim", ["--concurrency", "2"])
        try await Self.waitForCheckpoints(db, [dir + "/kept.bin", dir + "/stale.bin"])
        victim.signal(SIGKILL)
        _ = try await victim.waitForExit()
        let offsets = try await Self.offsets(db, [dir + "/kept.bin", dir + "/stale.bin"])

        // Cancelled with no worker running them: the rescue ends them, on whatever machine, so the files stay.
        try await Self.ferry(db, ["cancel", "--batch", "trip"])
        let rescuer = try TestWorker.transfers(db, name: "rescuer")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the rescue to cancel both") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'cancelled'") == 2
        }
        let parts = try Self.partFiles(dir)
        try #require(parts.count == 2)
        // One no longer matches its cursor: it is shorter than the recorded durable offset.
        let stale = try #require(parts.first { $0.hasPrefix(".stale.bin") })
        #expect(truncate(dir + "/" + stale, off_t(offsets[dir + "/stale.bin"]! - 1)) == 0)

        try await server.setFaults([:])
        try await Self.ferry(db, ["retry", "--batch", "trip"])
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "both retried fetches to succeed") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 2
        }
        try await URLFetchTests.stop([rescuer])
        for name in ["kept.bin", "stale.bin"] {
            #expect(try DropboxAccounts.sha256(dir + "/" + name) == sha[name], "\(name)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["kept.bin", "stale.bin"])
        URLFetchTests.expectResumed(try await URLFetchTests.rangeStarts(server, "/web/big/kept.bin"), at: offsets[dir + "/kept.bin"]!)
        let staleStarts = try await URLFetchTests.rangeStarts(server, "/web/big/stale.bin")
        #expect(staleStarts.count >= 2 && staleStarts.allSatisfy { $0 == 0 }, "the stale file was overwritten from zero: \(staleStarts)")
    }
}
