import FerryCore
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Real `ferry` workers uploading to a real `ferry dev-server` over loopback, with faults.
@Suite("Dropbox uploads", .tags(.postgres, .process), .serialized)
struct DropboxUploadTests {
    /// Large files in sequential upload sessions (one chunk in flight), whose offsets these tests follow.
    static let sequentialSessions = ["FERRY_DROPBOX_PARALLEL_APPENDS": "1"]

    static func enqueue(_ db: TestDatabase, _ lines: [String], in dir: String) async throws {
        let path = dir + "/jobs.jsonl"
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let result = try await FerryProcess.run(["enqueue", "--from", path], databaseURL: db.url)
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test("20 photos and two 100+ MiB files arrive exactly once through failures, drops, 429s and token expiry")
    func batchThroughFaults() async throws {
        // Seed 16 draws failures at its 2nd, 8th, 13th, 20th and 21st decisions: every run sees some, whatever the
        // requests' order. (Seed 11 drew its first at the 40th, which a run of batch commits did not always reach.)
        let server = try await DevServerProcess([
            "--token-lifetime", "1", "--latency-ms", "30", "--seed", "16", "--failure-rate", "0.1", "--drop-after-apply-rate", "0.03",
            "--rate-limit-rate", "0.03", "--write-contention-rate", "0.05",
        ])
        let db = try await TestDatabase.make("dbx_faults")
        let refreshToken = try await DropboxAccounts.add("photos", server: server, databaseURL: db.url)
        let dir = try temporaryFolder("photos")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var files = [String]()
        for index in 0..<20 {
            let path = "\(dir)/IMG_\(1000 + index).jpg"
            try DropboxAccounts.randomFile(path, size: Int.random(in: 150_000...3_200_000))
            files.append(path)
        }
        for (index, size) in [101 * 1024 * 1024 + 17, 105 * 1024 * 1024].enumerated() {
            let path = "\(dir)/video-\(index).mov"
            try DropboxAccounts.randomFile(path, size: size)
            files.append(path)
        }
        try await Self.enqueue(
            db, files.map { #"{"kind":"upload","source":"\#($0)","to":"dropbox:photos:/Camera/","batch":"trip","max_attempts":25}"# },
            in: dir)

        let workers = try (0..<2).map { try TestWorker.transfers(db, name: "dbx-\($0)", ["--concurrency", "4", "--chunk-size", "8"]) }
        try await eventually(timeout: .seconds(600), interval: .milliseconds(500), "the batch to finish") {
            try await WorkerFixtures.batchDone(db, "trip")
        }
        for worker in workers { worker.signal(SIGTERM) }
        for worker in workers { _ = try await worker.waitForExit() }

        let failed = try await db.query("SELECT source, last_error FROM ferry.jobs WHERE batch = 'trip' AND state <> 'succeeded'").rows
        let failures = failed.map { "\((try? $0.decode(String.self, at: 0)) ?? ""): \((try? $0.decode(String?.self, at: 1)) ?? nil ?? "")" }
        #expect(failed.isEmpty, "\(failures)")

        // Every file is on the server once, byte for byte.
        let stats = try await server.stats()
        for file in files {
            let name = (file as NSString).lastPathComponent
            let stored = server.storedFile(account: "photos", path: "/Camera/\(name)")
            #expect(try DropboxAccounts.sha256(stored) == DropboxAccounts.sha256(file), "\(name)")
            #expect(stats["commits_per_path"]?["/camera/\(name.lowercased())"]?.intValue == 1, "\(name) committed once")
        }
        #expect(stats["files_committed"]?.intValue == Int64(files.count))

        // Faults really happened, and the log shows how they were handled.
        let faults = stats["faults_injected"]
        #expect((faults?["failure"]?.intValue ?? 0) > 0)
        #expect((stats["token_refreshes_per_account"]?["photos"]?.intValue ?? 0) >= 2, "refreshed during the run")
        let deferred = try await count(db, "SELECT count(*) FROM ferry.events WHERE type = 'deferred'")
        if (stats["rate_limited_responses"]?.intValue ?? 0) > 0 || (faults?["write_contention"]?.intValue ?? 0) > 6 {
            #expect(deferred > 0, "429s defer jobs without consuming attempts")
        }
        let sessionEvents = try await count(
            db, "SELECT count(*) FROM ferry.events WHERE type = 'progress' AND data->'session' ? 'upload_session_id'")
        #expect(sessionEvents >= 20, "each accepted chunk of the large files is a progress event")
        let refreshEvents = try await count(
            db, "SELECT count(*) FROM ferry.account_events WHERE account = 'photos' AND type = 'token_refreshed'")
        #expect(refreshEvents >= 2)

        let verify = try await FerryProcess.run(["projection", "verify"], databaseURL: db.url)
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")

        // No token anywhere: database dump, events, worker logs.
        var tokens = try server.issuedTokens()
        tokens.append(refreshToken)
        #expect(tokens.count >= 3)
        let dump = try Self.pgDump(db.url)
        #expect(dump.contains("token_refreshed"), "the dump is real")
        let logs = workers.map(\.log).joined()
        #expect(logs.contains("access token refreshed"))
        for token in tokens {
            #expect(!dump.contains(token), "a token leaked into pg_dump output")
            #expect(!logs.contains(token), "a token leaked into worker logs")
        }
    }

    @Test("upload options: a changed nightly backup replaces the file with mode=overwrite, fails in add mode, is kept beside it with autorename")
    func writeModes() async throws {
        let server = try await DevServerProcess([])
        let db = try await TestDatabase.make("dbx_modes")
        try await DropboxAccounts.add("nightly", server: server, databaseURL: db.url)
        let dir = try temporaryFolder("modes")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/backup.tar"
        let worker = try TestWorker.transfers(db, name: "modes")
        func upload(_ options: [String], key: String) async throws -> String {
            let result = try await FerryProcess.run(
                ["enqueue", "upload", file, "--to", "dropbox:nightly:/Backups/", "--key", key] + options, databaseURL: db.url)
            #expect(result.status == 0, "\(result.stderr)")
            let id = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "job \(key) to finish") {
                try await count(
                    db, "SELECT count(*) FROM ferry.jobs WHERE job_id = $1::uuid AND state IN ('succeeded', 'failed')", [id]) == 1
            }
            return id
        }
        func state(_ id: String) async throws -> (String, String?) {
            let row = try await db.query("SELECT state, last_error FROM ferry.jobs WHERE job_id = $1::uuid", [id]).rows[0]
            return (try row.decode(String.self, at: 0), try row.decode(String?.self, at: 1))
        }

        try DropboxAccounts.randomFile(file, size: 300_000)
        let first = try await upload([], key: "night-1")
        #expect(try await state(first).0 == "succeeded")

        try DropboxAccounts.randomFile(file, size: 310_000)
        let added = try await upload([], key: "night-2-add")
        let (addState, addError) = try await state(added)
        #expect(addState == "failed" && (addError ?? "").contains("destination_exists"), "\(addError ?? "")")

        let overwritten = try await upload(["--option", "mode=overwrite", "--option", "mute"], key: "night-2-overwrite")
        #expect(try await state(overwritten).0 == "succeeded")
        let stored = server.storedFile(account: "nightly", path: "/Backups/backup.tar")
        #expect(try DropboxAccounts.sha256(stored) == DropboxAccounts.sha256(file), "the new version replaced the old one")

        try DropboxAccounts.randomFile(file, size: 320_000)
        let renamed = try await upload(["--option", "autorename=true"], key: "night-3-autorename")
        #expect(try await state(renamed).0 == "succeeded")
        let copy = server.storedFile(account: "nightly", path: "/Backups/backup (1).tar")
        #expect(try DropboxAccounts.sha256(copy) == DropboxAccounts.sha256(file), "autorename kept both versions")
        let details = try await db.query("SELECT spec::text FROM ferry.jobs WHERE job_id = $1::uuid", [overwritten]).rows[0]
        let spec = try JSONValue.parse(try details.decode(String.self, at: 0))
        #expect(spec["mode"] == .string("overwrite") && spec["mute"] == .bool(true))

        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()
    }

    @Test("a commit Dropbox stored with the wrong content is replaced by revision on the next attempt, never left or duplicated")
    func corruptedCommitIsReplaced() async throws {
        let server = try await DevServerProcess(["--corrupt-commit-rate", "1"])
        let db = try await TestDatabase.make("dbx_corrupt")
        try await DropboxAccounts.add("rot", server: server, databaseURL: db.url)
        let dir = try temporaryFolder("corrupt")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // One single-request upload and one upload session (4 MiB chunks), both in the default add mode.
        try DropboxAccounts.randomFile(dir + "/small.jpg", size: 200_000)
        try DropboxAccounts.randomFile(dir + "/large.bin", size: 9 * 1024 * 1024 + 5)
        try await Self.enqueue(db, [
            #"{"kind":"upload","source":"\#(dir)/small.jpg","to":"dropbox:rot:/Rot/","max_attempts":10}"#,
            #"{"kind":"upload","source":"\#(dir)/large.bin","to":"dropbox:rot:/Rot/","max_attempts":10}"#,
        ], in: dir)

        let worker = try TestWorker.transfers(db, name: "rot", ["--chunk-size", "4"])
        try await eventually(timeout: .seconds(300), interval: .milliseconds(100), "both commits to be found corrupted") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE last_error LIKE '%content_hash_mismatch%'") == 2
        }
        try await server.setFaults([:])
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "both uploads to succeed") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 2
        }
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()

        for name in ["small.jpg", "large.bin"] {
            #expect(try DropboxAccounts.sha256(server.storedFile(account: "rot", path: "/Rot/" + name)) == DropboxAccounts.sha256(dir + "/" + name))
        }
        let stored = try FileManager.default.contentsOfDirectory(atPath: server.storedFile(account: "rot", path: "/Rot")).sorted()
        #expect(stored == ["large.bin", "small.jpg"], "replaced in place: no autorenamed copy, nothing left beside it")
        let stats = try await server.stats()
        #expect((stats["faults_injected"]?["corrupt_commit"]?.intValue ?? 0) >= 2, "the fault happened")
        // The replacement named the corrupted revision: a progress event carried it to the next attempt.
        let replaced = try await count(
            db, "SELECT count(DISTINCT job_id) FROM ferry.events WHERE type = 'progress' AND data->'session' ? 'replace'")
        #expect(replaced == 2)
    }

    @Test("kill -9 mid-session: the next attempt resumes the same session at the recorded offset")
    func resumeAfterKill() async throws {
        let server = try await DevServerProcess(["--latency-ms", "250"])
        let db = try await TestDatabase.make("dbx_kill")
        try await DropboxAccounts.add("vault", server: server, databaseURL: db.url)
        let dir = try temporaryFolder("kill")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let size = 64 * 1024 * 1024 + 123
        let chunk = 4 * 1024 * 1024
        try DropboxAccounts.randomFile(dir + "/big.bin", size: size)
        try await Self.enqueue(db, [#"{"kind":"upload","source":"\#(dir)/big.bin","to":"dropbox:vault:/big.bin"}"#], in: dir)

        let victim = try TestWorker.transfers(db, name: "victim", ["--chunk-size", "4"], environment: Self.sequentialSessions)
        try await eventually(timeout: .seconds(300), "a few chunks to be recorded") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE bytes_done >= $1", [Int64(3 * chunk)]) == 1
        }
        victim.signal(SIGKILL)
        _ = try await victim.waitForExit()
        let recorded = try await db.query("SELECT bytes_done, session->>'upload_session_id' FROM ferry.jobs").rows[0]
        let offset = try recorded.decode(Int64.self, at: 0)
        let sessionID = try recorded.decode(String.self, at: 1)

        let survivor = try TestWorker.transfers(db, name: "survivor", ["--chunk-size", "4"], environment: Self.sequentialSessions)
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
        try await Self.enqueue(db, [#"{"kind":"upload","source":"\#(dir)/photo.jpg","to":"dropbox:vault:/photo.jpg","batch":"z"}"#], in: dir)
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

    @Test("chunks the server kept only half of: the worker resends just their tails, and the file is exact")
    func partialChunksResendTails() async throws {
        let server = try await DevServerProcess(["--partial-chunk-rate", "0.4", "--seed", "5"])
        let db = try await TestDatabase.make("dbx_partial")
        try await DropboxAccounts.add("tails", server: server, databaseURL: db.url)
        let dir = try temporaryFolder("partial")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let size = 24 * 1024 * 1024 + 77
        let chunk = 2 * 1024 * 1024
        try DropboxAccounts.randomFile(dir + "/tails.bin", size: size)
        try await Self.enqueue(db, [#"{"kind":"upload","source":"\#(dir)/tails.bin","to":"dropbox:tails:/tails.bin","max_attempts":10}"#], in: dir)

        let worker = try TestWorker.transfers(db, name: "tails", ["--chunk-size", "2"], environment: Self.sequentialSessions)
        try await eventually(timeout: .seconds(300), "the upload to end") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state IN ('succeeded', 'failed')") == 1
        }
        let ended = try await db.query("SELECT state, coalesce(last_error, '') FROM ferry.jobs").rows[0]
        let (state, lastError) = (try ended.decode(String.self, at: 0), try ended.decode(String.self, at: 1))
        try #require(state == "succeeded", "\(lastError): \(worker.log.suffix(3000))")
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()

        #expect(try DropboxAccounts.sha256(server.storedFile(account: "tails", path: "/tails.bin")) == DropboxAccounts.sha256(dir + "/tails.bin"))
        let stats = try await server.stats()
        let partials = stats["faults_injected"]?["partial_chunk"]?.intValue ?? 0
        #expect(partials > 0, "the fault happened")
        #expect(stats["sessions_started"]?.intValue == 1, "the session was resumed, never restarted")
        guard case .object(let sessions)? = stats["bytes_received_per_session"], let (sessionID, received) = sessions.first,
              case .array(let offsets)? = stats["append_offsets_per_session"]?[sessionID]
        else {
            Issue.record("no session in the statistics")
            return
        }
        // Each lost chunk arrived whole once and half of it (the tail) again: a whole chunk resent would be twice that.
        let extra = (received.intValue ?? 0) - Int64(size)
        #expect(extra > 0 && extra <= partials * Int64(chunk / 2), "resent \(extra) bytes for \(partials) half-kept chunks")
        #expect(offsets.contains { ($0.intValue ?? 0) % Int64(chunk) != 0 }, "an append started inside a chunk, at the server's offset")
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
        try await Self.enqueue(db, lines, in: dir)
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

    @Test("a revoked refresh token holds the account's jobs without burning attempts; login releases them")
    func invalidGrantHoldsJobs() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("dbx_held")
        let refreshToken = try await DropboxAccounts.add("family", server: server, databaseURL: db.url, verify: false)
        // Sign out on the provider's side (another app did it): refresh token and its access tokens die.
        let form = "grant_type=refresh_token&refresh_token=\(refreshToken)&client_id=\(DevServerProcess.appKey)&client_secret=\(server.appSecret)"
        let grant = try await server.request(
            "POST", "/oauth2/token", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(form.utf8))
        let access = try #require(grant["access_token"]?.stringValue)
        _ = try await server.raw("POST", "/2/auth/token/revoke", headers: ["Authorization": "Bearer \(access)"])

        let dir = try temporaryFolder("held")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try DropboxAccounts.randomFile(dir + "/a.jpg", size: 10_000)
        try await Self.enqueue(db, [#"{"kind":"upload","source":"\#(dir)/a.jpg","to":"dropbox:family:/a.jpg"}"#], in: dir)
        let worker = try TestWorker.transfers(db, name: "held")
        try await eventually(timeout: .seconds(300), "the job to be held") {
            let rows = try await db.query("SELECT status FROM ferry.job_status").rows
            return try rows.first?.decode(String.self, at: 0) == "held"
        }
        let row = try await db.query("SELECT held_reason, attempt, state FROM ferry.job_status").rows[0]
        #expect(try row.decode(String?.self, at: 0)?.contains("ferry account login family") == true)
        #expect(try row.decode(Int.self, at: 1) == 0, "no attempt consumed")
        #expect(try row.decode(String.self, at: 2) == "queued")
        let reauth = try await count(db, "SELECT count(*) FROM ferry.account_events WHERE type = 'needs_reauth'")
        #expect(reauth == 1)

        // Log in again (PKCE): read the URL the CLI prints, "click Allow", paste the code.
        try await Self.login("family", server: server, db: db)
        try await eventually(timeout: .seconds(300), "the held job to run after login") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 1
        }
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()
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

    static func pgDump(_ url: String) throws -> String {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("dump-\(UUID().uuidString).sql").path
        defer { unlink(out) }
        let status = system("pg_dump --no-owner '\(url)' > '\(out)' 2>/dev/null")
        guard status == 0 else { throw TestSupportError("pg_dump failed (\(status))") }
        return try String(contentsOfFile: out, encoding: .utf8)
    }
}
