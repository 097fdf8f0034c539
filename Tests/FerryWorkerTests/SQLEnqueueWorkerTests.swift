import AsyncHTTPClient
import FerryCore
import FerryDevServer
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Jobs enqueued with `ferry.enqueue` (SQL) run by real workers against a real dev server: the first worker settles
/// each one (a `resolved` event) with the same checks as `ferry enqueue`, or fails it for good naming the field. The
/// settling runs on a `Worker` in process; a `kill -9` after it needs `ferry worker` processes.
@Suite("SQL-enqueued jobs in real workers")
struct SQLEnqueueWorkerTests {
    static func enqueue(_ db: TestDatabase, _ kind: String, _ source: String, _ destination: String, _ options: String = "{}") async throws -> UUID {
        try await db.query("SELECT ferry.enqueue($1, $2, $3, $4::jsonb)", [kind, source, destination, options]).rows[0].decode(UUID.self, at: 0)
    }

    static func job(_ db: TestDatabase, _ id: UUID) async throws -> (state: String, source: String, destination: String, error: String?, bytesTotal: Int64?) {
        let row = try await db.query(
            "SELECT state, source, destination, last_error, bytes_total FROM ferry.jobs WHERE job_id = $1", [id]).rows[0]
        return (try row.decode(String.self, at: 0), try row.decode(String.self, at: 1), try row.decode(String.self, at: 2),
                try row.decode(String?.self, at: 3), try row.decode(Int64?.self, at: 4))
    }

    @Test("a fetch and an upload enqueued from SQL are settled by the worker and succeed; bad provider input fails for good naming the field",
          .tags(.postgres))
    func settleAndRun() async throws {
        try await PostgresWorker.withDevServer { server, web, http in try await Self.settle(server: server, web: web, http: http) }
    }

    static func settle(server: DevServer, web: String, http: HTTPClient) async throws {
        let db = try await TestDatabase.make("sql_worker")
        let dir = try temporaryFolder("sql-worker")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sha = try server.createWebFile(path: "sql/photo.jpg", size: 300_000, seed: 3).sha256
        let source = dir + "/upload-me.bin"
        let bytes = Data((0..<123_457).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        _ = FileManager.default.createFile(atPath: source, contents: bytes)
        try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)

        // A fetch with a checked provider option, an upload to a plain local folder (settled to file://…/name).
        let fetch = try await Self.enqueue(
            db, "fetch", web + "/sql/photo.jpg", dir + "/fetched/", #"{"options": {"sha256": "\#(sha)"}}"#)
        let upload = try await Self.enqueue(db, "upload", source, dir + "/out/", #"{"queue": "default", "key": "up-1"}"#)
        // Input only a provider can judge: an option value beyond its type (the database checks names and types),
        // an upload source that does not exist.
        let badOption = try await Self.enqueue(
            db, "fetch", web + "/sql/photo.jpg", dir + "/bad/", #"{"options": {"sha256": "red"}}"#)
        let missing = try await Self.enqueue(db, "upload", dir + "/no-such-file.bin", dir + "/out/")
        let badScheme = try await Self.enqueue(db, "fetch", "gopher://example.com/x", dir + "/gopher/")

        let worker = try PostgresWorker.transfers(db, name: "sql-worker", roots: [dir], http: http)
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "every job to finish") {
            try await URLFetchTests.allFinished(db)
        }
        try await worker.stop()

        let fetched = try await Self.job(db, fetch)
        #expect(fetched.state == "succeeded", "\(fetched)")
        #expect(fetched.destination == dir + "/fetched/photo.jpg", "settled to the file's own path")
        #expect(try DropboxAccounts.sha256(dir + "/fetched/photo.jpg") == sha)

        let uploaded = try await Self.job(db, upload)
        #expect(uploaded.state == "succeeded", "\(uploaded)")
        #expect(uploaded.destination.hasPrefix("file://") && uploaded.destination.hasSuffix("/out/upload-me.bin"), "\(uploaded.destination)")
        #expect(uploaded.bytesTotal == Int64(bytes.count), "the size as the worker's machine saw it")
        #expect(FileManager.default.contents(atPath: dir + "/out/upload-me.bin") == bytes)

        // Each settled job has exactly one resolved event, right after its first claim, carrying the source facts.
        for id in [fetch, upload] {
            let types = try await db.query("SELECT type FROM ferry.events WHERE job_id = $1 ORDER BY version", [id]).rows
                .map { try $0.decode(String.self, at: 0) }
            #expect(Array(types.prefix(3)) == ["enqueued", "claimed", "resolved"], "\(types)")
            #expect(types.filter { $0 == "resolved" }.count == 1)
        }
        let facts = try await db.query(
            "SELECT (data->'spec'->>'size')::bigint, data->'spec' ? 'inode' FROM ferry.events WHERE job_id = $1 AND type = 'resolved'", [upload]).rows[0]
        #expect(try facts.decode(Int64.self, at: 0) == Int64(bytes.count))
        #expect(try facts.decode(Bool.self, at: 1))

        for (id, field, words) in [(badOption, "sha256", "64 hexadecimal digits"), (missing, "source", "no such file"), (badScheme, "source", "gopher")] {
            let failed = try await Self.job(db, id)
            #expect(failed.state == "failed")
            let error = failed.error ?? ""
            #expect(error.hasPrefix("invalid_job:") && error.contains(field) && error.contains(words), "\(error)")
            #expect(try await count(db, "SELECT attempt FROM ferry.jobs WHERE job_id = $1", [id]) == 1, "failed on its first attempt")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/bad"))
        let store = db.store(poolSize: 2)
        defer { store.client.close() }
        let verify = try await store.projection.verify()
        #expect(verify.isClean, "\(verify.text)")
    }

    @Test("kill -9 after the job was settled: the next worker runs the settled job without settling it again", .tags(.postgres, .process))
    func settledSurvivesKill() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("sql_worker_kill")
        let dir = try temporaryFolder("sql-worker-kill")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sha = try await URLFetchTests.webFile(server, "big/sql.bin", size: 24 * 1024 * 1024, seed: 8)
        try await server.setFaults(["download_bytes_per_second": .int(128 * 1024)])
        let id = try await Self.enqueue(db, "fetch", server.baseURL + "/web/big/sql.bin", dir + "/")
        let victim = try TestWorker.transfers(db, name: "sql-victim")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(100), "a checkpoint") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE (session->>'offset')::bigint > 0") == 1
        }
        victim.signal(SIGKILL)
        _ = try await victim.waitForExit()
        try await server.setFaults([:])
        let survivor = try TestWorker.transfers(db, name: "sql-survivor")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the fetch to finish") {
            try await Self.job(db, id).state == "succeeded"
        }
        try await URLFetchTests.stop([survivor])
        #expect(try DropboxAccounts.sha256(dir + "/sql.bin") == sha)
        #expect(try await count(db, "SELECT count(*) FROM ferry.events WHERE job_id = $1 AND type = 'resolved'", [id]) == 1)
        #expect(survivor.log.contains("resuming download"))
    }
}
