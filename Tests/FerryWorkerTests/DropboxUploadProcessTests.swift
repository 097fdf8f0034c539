import FerryCore
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Real `ferry` worker processes uploading to a real `ferry dev-server`: what only processes show (a worker killed
/// mid-session or stopped past its lease, several processes sharing one token refresh, the login command). The
/// uploads' behaviour runs in process, in `DropboxUploadTests`.
@Suite("Dropbox uploads (processes)", .tags(.postgres, .process), .serialized)
struct DropboxUploadProcessTests {
    @Test("kill -9 mid-session: the next attempt resumes the same session at the recorded offset")
    func resumeAfterKill() async throws {
        // Read at 4 MiB/s, the file takes 16 s: the kill at 12 MiB lands mid-session even on a loaded machine.
        let server = try await DevServerProcess(["--latency-ms", "250", "--upload-bytes-per-second", "4194304"])
        let db = try await TestDatabase.make("dbx_kill")
        try await DropboxAccounts.add("vault", server: server, databaseURL: db.url)
        let dir = try temporaryFolder("kill")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let size = 64 * 1024 * 1024 + 123
        let chunk = 4 * 1024 * 1024
        try DropboxAccounts.randomFile(dir + "/big.bin", size: size)
        try await DropboxUploadTests.enqueue(db, [#"{"kind":"upload","source":"\#(dir)/big.bin","to":"dropbox:vault:/big.bin"}"#], in: dir)

        let victim = try TestWorker.transfers(db, name: "victim", ["--chunk-size", "4"], environment: DropboxUploadTests.sequentialSessions)
        // The kill comes from a process of its own: this test's task can be starved for seconds under load, and a
        // late kill would find the upload done.
        try await WorkerFixtures.kill(victim, in: db, when: "SELECT count(*) FROM ferry.jobs WHERE bytes_done >= \(3 * chunk)")
        let recorded = try await db.query("SELECT bytes_done, session->>'upload_session_id' FROM ferry.jobs").rows[0]
        let offset = try recorded.decode(Int64.self, at: 0)
        #expect(offset < Int64(size), "killed mid-session (\(offset) of \(size) bytes recorded)")
        let sessionID = try recorded.decode(String.self, at: 1)

        let survivor = try TestWorker.transfers(db, name: "survivor", ["--chunk-size", "4"], environment: DropboxUploadTests.sequentialSessions)
        try await eventually(timeout: .seconds(300), "the upload to finish") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 1
        }
        survivor.signal(SIGTERM)
        _ = try await survivor.waitForExit()

        let stats = try await server.stats()
        #expect(stats["sessions_started"]?.intValue == 1, "resumed, not restarted")
        let received = stats["bytes_received_per_session"]?[sessionID]?.intValue ?? 0
        #expect(received >= Int64(size))
        #expect(received - Int64(size) <= Int64(chunk), "re-sent at most one chunk (\(received - Int64(size)) bytes)")
        if case .array(let offsets)? = stats["append_offsets_per_session"]?[sessionID] {
            #expect(offsets.contains(.int(offset)), "an append started at the recorded offset \(offset)")
        } else {
            Issue.record("no append offsets for the session")
        }
        #expect(try DropboxAccounts.sha256(server.storedFile(account: "vault", path: "/big.bin")) == DropboxAccounts.sha256(dir + "/big.bin"))
        let attempt = try await count(db, "SELECT attempt FROM ferry.jobs")
        #expect(attempt == 2)
    }

    @Test("a worker paused mid-upload past its lease: another uploads the file; resumed, the zombie's outcome is refused and logged by job id")
    func zombieOutcomeRefused() async throws {
        // Uploads are read at 128 KiB/s, so the 1 MiB single-request upload is still in flight when the worker stops.
        let server = try await DevServerProcess(["--upload-bytes-per-second", "131072"])
        let db = try await TestDatabase.make("dbx_zombie")
        try await DropboxAccounts.add("vault", server: server, databaseURL: db.url)
        let dir = try temporaryFolder("zombie")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try DropboxAccounts.randomFile(dir + "/photo.jpg", size: 1024 * 1024)
        try await DropboxUploadTests.enqueue(db, [#"{"kind":"upload","source":"\#(dir)/photo.jpg","to":"dropbox:vault:/photo.jpg","batch":"z"}"#], in: dir)
        let job = try await db.query("SELECT job_id::text FROM ferry.jobs").rows[0].decode(String.self, at: 0)

        // Single commits: with batch commit the zombie would stop at its progress record before the commit (its
        // claim gone), never reaching the outcome refusal this test is about.
        let zombie = try TestWorker.transfers(db, name: "zombie", ["--log-format", "json"], environment: ["FERRY_DROPBOX_COMMIT": "single"])
        try await eventually(timeout: .seconds(300), "the upload to be in flight") {
            try await server.stats()["bytes_received"]?.intValue ?? 0 > 0
        }
        zombie.signal(SIGSTOP)
        try await server.setFaults([:])
        let other = try TestWorker.transfers(db, name: "other")
        try await eventually(timeout: .seconds(300), "the other worker to upload the file") { try await WorkerFixtures.batchDone(db, "z") }
        zombie.signal(SIGCONT)
        // Its request goes on and meets the identical file: success, which the lease check refuses.
        try await eventually(timeout: .seconds(300), "the zombie to log its refused outcome") { zombie.log.contains("outcomes not written") }
        let refusal = try #require(zombie.log.split(separator: "\n").first { $0.contains("outcomes not written") })
        #expect(refusal.contains(#""job_ids":"\#(job)""#), "\(refusal)")
        for worker in [zombie, other] { worker.signal(SIGTERM) }
        for worker in [zombie, other] { #expect(try await worker.waitForExit() == 0) }

        #expect(try await count(db, "SELECT count(*) FROM ferry.events WHERE type = 'rescued' AND data->>'lease' = '1'") == 1)
        #expect(try await count(db, "SELECT count(*) FROM ferry.events WHERE type = 'succeeded'") == 1)
        #expect(try await count(db, "SELECT count(*) FROM ferry.events WHERE type = 'succeeded' AND data->>'lease' = '2'") == 1)
        #expect(try DropboxAccounts.sha256(server.storedFile(account: "vault", path: "/photo.jpg")) == DropboxAccounts.sha256(dir + "/photo.jpg"))
        #expect(try await server.stats()["commits_per_path"]?["/photo.jpg"]?.intValue == 1, "the zombie's commit wrote nothing")
        #expect(try await FerryProcess.run(["projection", "verify"], databaseURL: db.url).status == 0)
    }

    @Test("three workers, one account, no access token yet: exactly one refresh reaches the server")
    func singleRefreshAcrossWorkers() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("dbx_refresh")
        try await DropboxAccounts.add("shared", server: server, databaseURL: db.url, verify: false)
        _ = try await db.query("UPDATE ferry.accounts SET max_concurrent = 12")
        let dir = try temporaryFolder("refresh")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var lines = [String]()
        for index in 0..<12 {
            try DropboxAccounts.randomFile("\(dir)/f\(index).jpg", size: 50_000)
            lines.append(#"{"kind":"upload","source":"\#(dir)/f\#(index).jpg","to":"dropbox:shared:/in/"}"#)
        }
        // Workers first, so they all find the jobs at the same moment.
        let workers = try (0..<3).map { try TestWorker.transfers(db, name: "r\($0)", ["--concurrency", "4"]) }
        try await eventually(timeout: .seconds(300), "the three workers to register") {
            try await count(db, "SELECT count(*) FROM ferry.workers") == 3
        }
        try await DropboxUploadTests.enqueue(db, lines, in: dir)
        try await eventually(timeout: .seconds(300), "the uploads to finish") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 12
        }
        for worker in workers { worker.signal(SIGTERM) }
        let stats = try await server.stats()
        #expect(stats["token_refreshes_per_account"]?["shared"]?.intValue == 1)
        let refreshEvents = try await count(
            db, "SELECT count(*) FROM ferry.account_events WHERE account = 'shared' AND type = 'token_refreshed'")
        #expect(refreshEvents == 1)
    }

    @Test("login creates a new account from its kind's own options (app key, secret file, hosts)")
    func loginNewAccount() async throws {
        let server = try await DevServerProcess([])
        let db = try await TestDatabase.make("dbx_login_new")
        try await Self.login(
            "fresh", server: server, db: db,
            extra: ["--provider", "dropbox", "--app-key", DevServerProcess.appKey] + server.secretOptions + server.urlOptions)
        let row = try await db.query(
            "SELECT provider, status, app_key, refresh_token_sealed IS NOT NULL, api_url FROM ferry.accounts WHERE name = 'fresh'").rows[0]
        #expect(try row.decode(String.self, at: 0) == "dropbox" && row.decode(String.self, at: 1) == "active")
        #expect(try row.decode(String.self, at: 2) == DevServerProcess.appKey && row.decode(Bool.self, at: 3))
        #expect(try row.decode(String.self, at: 4) == server.baseURL)
    }

    /// Runs `ferry account login NAME` interactively: the dev server's authorize page answers with the code.
    static func login(_ name: String, server: DevServerProcess, db: TestDatabase, extra: [String] = []) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: FerryProcess.executable)
        process.arguments = ["account", "login", name] + extra
        var environment = ProcessInfo.processInfo.environment
        environment["FERRY_DATABASE_URL"] = db.url
        environment["FERRY_SECRET_KEY"] = DropboxAccounts.secretKey
        process.environment = environment
        let input = Pipe()
        let errPath = FileManager.default.temporaryDirectory.appendingPathComponent("login-\(UUID().uuidString)").path
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let errHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        process.standardInput = input
        process.standardError = errHandle
        process.standardOutput = errHandle
        try process.run()
        var url: String?
        try await eventually(timeout: .seconds(300), "the authorize URL") {
            let text = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
            url = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first { $0.hasPrefix("http") }
            return url != nil
        }
        #expect(url!.contains("code_challenge_method=S256") && url!.contains("token_access_type=offline"))
        let path = String(url!.dropFirst(server.baseURL.count))
        let (codeData, status) = try await server.raw("GET", path)
        #expect(status == 200)
        var code = String(decoding: codeData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if let last = code.split(separator: "\n").last { code = String(last).trimmingCharacters(in: .whitespaces) }
        input.fileHandleForWriting.write(Data((code + "\n").utf8))
        try input.fileHandleForWriting.close()
        try await eventually(timeout: .seconds(300), "login to finish") { !process.isRunning }
        let output = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        #expect(process.terminationStatus == 0, "\(output)")
        #expect(!output.contains(code) || code.count < 8, "the code is not echoed")
    }

}
