import FerryCore
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Web fetches through faults, and resumes after `kill -9` of a real `ferry` worker or of a real `ferry dev-server`
/// (those cases are `.process`). Fetches that need no database (files, checksums, 404 and 410, redirects) run in the
/// fast tier: `URLFetchInProcessTests`.
@Suite("URL fetches", .tags(.postgres))
struct URLFetchTests {
    /// `ferry enqueue fetch URL --to PATH …`, answering the job id.
    @discardableResult
    static func enqueue(_ db: TestDatabase, _ url: String, to path: String, _ extra: [String] = []) async throws -> String {
        let result = try await FerryProcess.run(["enqueue", "fetch", url, "--to", path] + extra, databaseURL: db.url)
        #expect(result.status == 0, "\(result.stderr)")
        return result.lines.last ?? ""
    }

    /// Creates `/web/<path>` with pseudo-random content; answers its SHA-256.
    @discardableResult
    static func webFile(_ server: any DevServerControl, _ path: String, size: Int64, seed: Int64) async throws -> String {
        let reply = try await server.request("POST", "/__dev/web", json: .object(["path": .string(path), "size": .int(size), "seed": .int(seed)]))
        return try #require(reply["sha256"]?.stringValue)
    }

    static func job(_ db: TestDatabase, destination: String) async throws -> (state: String, attempt: Int, error: String?) {
        let row = try await db.query("SELECT state, attempt, last_error FROM ferry.jobs WHERE destination = $1", [destination]).rows[0]
        return (try row.decode(String.self, at: 0), try row.decode(Int.self, at: 1), try row.decode(String?.self, at: 2))
    }

    static func allFinished(_ db: TestDatabase) async throws -> Bool {
        try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state NOT IN ('succeeded', 'failed', 'cancelled')") == 0
    }

    static func stop(_ workers: [BackgroundProcess]) async throws {
        for worker in workers { worker.signal(SIGTERM) }
        for worker in workers { _ = try await worker.waitForExit() }
    }

    @Test("429 defers the job and 503 retries it; both then succeed")
    func rateLimitAndServerErrors() async throws {
        try await InProcessFleet.run("url_429") { fleet in try await Self.rateLimitAndServerErrors(fleet) }
    }

    static func rateLimitAndServerErrors(_ fleet: InProcessFleet) async throws {
        let server = fleet.server, db = fleet.db
        let dir = try temporaryFolder("url-429")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let limitedSHA = try await Self.webFile(server, "limited.bin", size: 20_000, seed: 7)
        let flakySHA = try await Self.webFile(server, "flaky.bin", size: 30_000, seed: 8)
        for (path, status) in [("limited.bin", 429), ("flaky.bin", 503)] {
            _ = try await server.request("POST", "/__dev/web/status", json: .object(["path": .string(path), "status": .int(Int64(status))]))
        }
        try await fleet.enqueue(.fetch, server.baseURL + "/web/limited.bin", to: dir + "/limited.bin")
        try await fleet.enqueue(.fetch, server.baseURL + "/web/flaky.bin", to: dir + "/flaky.bin", maxAttempts: 50)
        let worker = try fleet.worker("url-429")

        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "a deferral and two failed attempts") {
            let deferred = try await count(
                db, "SELECT count(*) FROM ferry.events e JOIN ferry.jobs j USING (job_id) WHERE e.type = 'deferred' AND j.destination = $1",
                [dir + "/limited.bin"])
            let retries = try await count(
                db, "SELECT count(*) FROM ferry.events e JOIN ferry.jobs j USING (job_id) WHERE e.type = 'retry_scheduled' AND j.destination = $1",
                [dir + "/flaky.bin"])
            return deferred >= 1 && retries >= 2
        }
        let limited = try await Self.job(db, destination: dir + "/limited.bin")
        #expect(limited.state == "queued" || limited.state == "running")
        #expect(limited.error?.contains("429") == true, "\(limited.error ?? "")")
        #expect(try await Self.job(db, destination: dir + "/flaky.bin").error?.contains("503") == true)
        for path in ["limited.bin", "flaky.bin"] {
            _ = try await server.request("POST", "/__dev/web/status", json: .object(["path": .string(path), "status": .null]))
        }
        // The 429 carried no Retry-After: the job comes back after the default 30 s.
        try await eventually(timeout: .seconds(300), interval: .milliseconds(300), "both fetches to succeed") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 2
        }
        try await fleet.stop([worker])
        #expect(try DropboxAccounts.sha256(dir + "/limited.bin") == limitedSHA)
        #expect(try DropboxAccounts.sha256(dir + "/flaky.bin") == flakySHA)
        let limitedAttempts = try await Self.job(db, destination: dir + "/limited.bin").attempt
        #expect(limitedAttempts == 1, "a rate limit consumes no attempt")
    }

    /// The first byte of every GET the dev server answered for `path`, in order.
    static func rangeStarts(_ server: any DevServerControl, _ path: String) async throws -> [Int64] {
        guard case .array(let values)? = try await server.stats()["web_range_starts_per_path"]?[path] else { return [] }
        return values.compactMap { value -> Int64? in if case .int(let n) = value { return n } else { return nil } }
    }

    /// The first request started from 0 and the one after the kill from the recorded offset. On a starved machine
    /// the victim's first request can fail (a connect timeout) and be retried before the kill; no request starts
    /// past the offset or goes back.
    static func expectResumed(_ starts: [Int64], at offset: Int64, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(starts.count >= 2 && starts.first == 0 && starts.last == offset, "\(starts), offset \(offset)", sourceLocation: sourceLocation)
        #expect(starts == starts.sorted(), "no request went back: \(starts)", sourceLocation: sourceLocation)
    }

    /// Enqueues a 24 MiB fetch served at 128 KiB/s, kills the worker once a checkpoint with offset > 0 is recorded
    /// (the download would take minutes more, so a busy test task still kills it midway), lifts the throttle for
    /// the next attempt and answers the recorded offset.
    static func killMidDownload(_ server: DevServerProcess, _ db: TestDatabase, dir: String, name: String) async throws -> Int64 {
        try await server.setFaults(["download_bytes_per_second": .int(128 * 1024)])
        try await Self.enqueue(db, server.baseURL + "/web/big/\(name)", to: dir + "/" + name)
        let victim = try TestWorker.transfers(db, name: "victim-\(name)")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(100), "a checkpoint to be recorded") {
            try await count(
                db, "SELECT count(*) FROM ferry.events WHERE type = 'progress' AND (data->'session'->>'offset')::bigint > 0") > 0
        }
        victim.signal(SIGKILL)
        _ = try await victim.waitForExit()
        try await server.setFaults([:])
        let offset = try await db.query("SELECT (session->>'offset')::bigint FROM ferry.jobs").rows[0].decode(Int64.self, at: 0)
        #expect(offset > 0 && offset < 24 * 1024 * 1024)
        return offset
    }

    @Test("kill -9 mid-download: the next attempt resumes with Range at exactly the recorded offset", .tags(.process))
    func resumeAfterKill() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("url_resume")
        let dir = try temporaryFolder("url-resume")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sha = try await Self.webFile(server, "big/movie.bin", size: 24 * 1024 * 1024 + 3, seed: 99)
        let offset = try await Self.killMidDownload(server, db, dir: dir, name: "movie.bin")

        let survivor = try TestWorker.transfers(db, name: "survivor")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(300), "the download to finish") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 1
        }
        try await Self.stop([survivor])
        #expect(try DropboxAccounts.sha256(dir + "/movie.bin") == sha)
        Self.expectResumed(try await Self.rangeStarts(server, "/web/big/movie.bin"), at: offset)
        #expect(survivor.log.contains("resuming download"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["movie.bin"])
    }

    @Test("the server gone mid-body: the bytes that arrived are checkpointed and the retry names the URL and byte", .tags(.process))
    func serverGoneMidBody() async throws {
        let server = try await DevServerProcess()
        // Minutes for the whole file: a busy test task still stops the server midway.
        try await server.setFaults(["download_bytes_per_second": .int(256 * 1024)])
        let db = try await TestDatabase.make("url_gone")
        let dir = try temporaryFolder("url-gone")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await Self.webFile(server, "big/gone.bin", size: 24 * 1024 * 1024, seed: 5)
        try await Self.enqueue(db, server.baseURL + "/web/big/gone.bin", to: dir + "/")
        let worker = try TestWorker.transfers(db, name: "w")
        // A slow download checkpoints every 2 s; stop the server between two checkpoints.
        try await eventually(timeout: .seconds(300), "a first checkpoint") {
            try await count(db, "SELECT count(*) FROM ferry.events WHERE type = 'progress'") >= 1
        }
        // Time is the point: 0.7 s after a checkpoint is mid-body, before the next one (no event marks it).
        try await Task.sleep(for: .milliseconds(700))
        server.process.signal(SIGKILL)
        try await eventually(timeout: .seconds(300), "the attempt to fail") {
            try await count(db, "SELECT count(*) FROM ferry.events WHERE type = 'retry_scheduled'") >= 1
        }
        try await Self.stop([worker])
        let error = try await db.query(
            "SELECT data->>'error' FROM ferry.events WHERE type = 'retry_scheduled' ORDER BY position LIMIT 1").rows[0].decode(String.self, at: 0)
        #expect(error.hasPrefix("http_transport: fetching http://127.0.0.1:"), "\(error)")
        let stoppedAt = try #require(error.range(of: "stopped at byte ").map { Int64(error[$0.upperBound...].prefix { $0.isNumber }) } ?? nil, "\(error)")
        // The last progress event, written as the attempt ended, records every byte that arrived.
        let recorded = try await count(db, """
            SELECT (data->>'bytes_done')::bigint FROM ferry.events
             WHERE type = 'progress' AND position < (SELECT min(position) FROM ferry.events WHERE type = 'retry_scheduled')
             ORDER BY position DESC LIMIT 1
            """)
        #expect(Int64(recorded) == stoppedAt)
        #expect(stoppedAt > 0 && stoppedAt < 24 * 1024 * 1024)
    }

    @Test(
        "kill -9 while a fast download has writes in flight: checkpoints came ≥ 8 MiB and ≥ 1 s apart (or 2 s apart), the next attempt resumes at the last one, the file is byte-identical",
        .tags(.process))
    func resumeFastDownloadAfterKill() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("url_fast_resume")
        let dir = try temporaryFolder("url-fast-resume")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let size: Int64 = 256 * 1024 * 1024 + 5
        let sha = try await Self.webFile(server, "big/fast.bin", size: size, seed: 77)
        // Fast enough that pieces arrive while earlier ones are being written, slow enough to kill it midway; held
        // at 192 MiB, so that a test task starved for the whole 16 s still kills it mid-download.
        try await server.setFaults(["download_bytes_per_second": .int(16 << 20), "download_pause_at_byte": .int(192 << 20)])
        try await Self.enqueue(db, server.baseURL + "/web/big/fast.bin", to: dir + "/fast.bin")
        let victim = try TestWorker.transfers(db, name: "victim-fast")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(50), "three checkpoints") {
            try await count(db, "SELECT count(*) FROM ferry.events WHERE type = 'progress'") >= 3
        }
        victim.signal(SIGKILL)
        _ = try await victim.waitForExit()
        let offset = try await db.query("SELECT (session->>'offset')::bigint FROM ferry.jobs").rows[0].decode(Int64.self, at: 0)
        #expect(offset > 0 && offset < size)

        // Spacing: a fast link checkpoints every 8 MiB at most once a second (each one waits for the disk).
        let checkpoints = try await db.query(
            "SELECT (data->'session'->>'offset')::bigint, extract(epoch FROM recorded_at)::float8 FROM ferry.events WHERE type = 'progress' ORDER BY position"
        ).rows.map { (try $0.decode(Int64.self, at: 0), try $0.decode(Double.self, at: 1)) }
        // The rule: 8 MiB and a second apart, or 2 s apart whatever arrived (a busy machine may not keep up).
        for (earlier, later) in zip(checkpoints, checkpoints.dropFirst()) {
            let bytes = later.0 - earlier.0, seconds = later.1 - earlier.1
            #expect((bytes >= 8 << 20 && seconds >= 1) || (bytes > 0 && seconds >= 1.9), "\(checkpoints)")
        }
        #expect(checkpoints.last?.0 == offset)

        try await server.setFaults([:])
        let survivor = try TestWorker.transfers(db, name: "survivor-fast")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(300), "the download to finish") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 1
        }
        try await Self.stop([survivor])
        #expect(try DropboxAccounts.sha256(dir + "/fast.bin") == sha)
        Self.expectResumed(try await Self.rangeStarts(server, "/web/big/fast.bin"), at: offset)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["fast.bin"])
    }

    @Test("a remote file replaced between attempts is fetched again from zero", .tags(.process))
    func remoteChanged() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("url_changed")
        let dir = try temporaryFolder("url-changed")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let old = try await Self.webFile(server, "big/doc.bin", size: 24 * 1024 * 1024, seed: 1)
        let offset = try await Self.killMidDownload(server, db, dir: dir, name: "doc.bin")
        let new = try await Self.webFile(server, "big/doc.bin", size: 3 * 1024 * 1024 + 11, seed: 2)
        #expect(old != new)

        let survivor = try TestWorker.transfers(db, name: "survivor")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(300), "the download to finish") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 1
        }
        try await Self.stop([survivor])
        #expect(try DropboxAccounts.sha256(dir + "/doc.bin") == new)
        let result = try await db.query("SELECT result::text FROM ferry.jobs").rows[0].decode(String.self, at: 0)
        #expect(try JSONValue.parse(result)["bytes"] == .int(3 * 1024 * 1024 + 11), "\(result)")
        #expect(survivor.log.contains("starting over"), "the resumed request was answered with the whole new file (offset was \(offset))")
        let starts = try await Self.rangeStarts(server, "/web/big/doc.bin")
        #expect(starts.count >= 2 && starts.allSatisfy { $0 == 0 }, "the second request was served from zero: \(starts)")
    }

    @Test("a URL whose name decodes to ../ is refused at enqueue with exit 65", .tags(.process))
    func traversalRefused() async throws {
        let db = try await TestDatabase.make("url_traversal")
        let dir = try temporaryFolder("url-traversal")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try await FerryProcess.run(
            ["enqueue", "fetch", "http://127.0.0.1:9/web/..%2F..%2Fetc", "--to", dir + "/"], databaseURL: db.url)
        #expect(result.status == 65, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("file name"), "\(result.stderr)")
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs") == 0)
    }
}
