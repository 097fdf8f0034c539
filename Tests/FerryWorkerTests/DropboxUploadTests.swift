import FerryCore
import FerryDevServer
import FerryTestSupport
import Foundation
import Postgres
import Testing

@testable import FerryWorker

/// Workers uploading to the Dropbox dev server over loopback, with faults, in process (`InProcessFleet`): the proof
/// is in the jobs, the events, the server's counts and the files. What needs a `ferry worker` process (kill -9, a
/// stopped process, several processes sharing one refresh, the login command) is in `DropboxUploadProcessTests`.
@Suite("Dropbox uploads", .tags(.postgres), .serialized)
struct DropboxUploadTests {
    /// Large files in sequential upload sessions (one chunk in flight), whose offsets these tests follow.
    static let sequentialSessions = ["FERRY_DROPBOX_PARALLEL_APPENDS": "1"]

    /// `ferry enqueue --from FILE` with `lines` (JSON Lines) written to `dir/jobs.jsonl`, in a child process.
    static func enqueue(_ db: TestDatabase, _ lines: [String], in dir: String) async throws {
        let path = dir + "/jobs.jsonl"
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let result = try await FerryProcess.run(["enqueue", "--from", path], databaseURL: db.url)
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// `{"kind":"upload","source":FILE,"to":TO,…}`, as `ferry enqueue --from` reads it.
    static func upload(_ file: String, to: String, batch: String? = nil, maxAttempts: Int64? = nil) -> JobRequest {
        JobRequest(kind: .upload, source: file, to: to, batch: batch, maxAttempts: maxAttempts)
    }

    /// `pg_dump --no-owner URL`'s output.
    static func pgDump(_ url: String) async throws -> String {
        let dump = try await ChildProcess.run("/usr/bin/env", ["pg_dump", "--no-owner", url])
        guard dump.status == 0 else { throw TestSupportError("pg_dump failed (\(dump.status)): \(dump.stderr)") }
        return dump.stdout
    }

    /// The job's state and last error.
    static func state(_ db: TestDatabase, _ id: String) async throws -> (String, String?) {
        let row = try await db.query("SELECT state, last_error FROM ferry.jobs WHERE job_id = $1::uuid", [id]).rows[0]
        return (try row.decode(String.self, at: 0), try row.decode(String?.self, at: 1))
    }

    @Test("20 photos and two 100+ MiB files arrive exactly once through failures, drops, 429s and token expiry")
    func batchThroughFaults() async throws {
        // Seed 16 draws failures at its 2nd, 8th, 13th, 20th and 21st decisions: every run sees some, whatever the
        // requests' order. (Seed 11 drew its first at the 40th, which a run of batch commits did not always reach.)
        try await InProcessFleet.run("dbx_faults", configure: {
            $0.accessTokenLifetime = 1
            $0.faults = FaultConfiguration(
                seed: 16, failureRate: 0.1, dropAfterApplyRate: 0.03, rateLimitRate: 0.03, writeContentionRate: 0.05, latencyMilliseconds: 30)
        }) { fleet in try await Self.batchThroughFaults(fleet) }
    }

    static func batchThroughFaults(_ fleet: InProcessFleet) async throws {
        let server = fleet.server, db = fleet.db
        let refreshToken = try await fleet.addDropbox("photos")
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
        try await fleet.enqueue(files.map { Self.upload($0, to: "dropbox:photos:/Camera/", batch: "trip", maxAttempts: 25) })

        // Two workers, each with its own handlers, token provider and fleet shares, as two `ferry worker` processes.
        let log = LogRecorder()
        let workers = try (0..<2).map { try fleet.uploadWorker("dbx-\($0)", concurrency: 4, chunkMiB: 8, log: log) }
        try await fleet.running(workers) {
            try await eventually(timeout: .seconds(600), interval: .milliseconds(500), "the batch to finish") {
                try await WorkerFixtures.batchDone(db, "trip")
            }
        }

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

        #expect(try await fleet.projectionClean(), "ferry projection verify passes")

        // No token anywhere: database dump, events, the workers' logs.
        var tokens = try server.issuedTokens()
        tokens.append(refreshToken)
        #expect(tokens.count >= 3)
        let dump = try await Self.pgDump(db.url)
        #expect(dump.contains("token_refreshed"), "the dump is real")
        let logs = log.all.joined(separator: "\n")
        #expect(logs.contains("access token refreshed"))
        for token in tokens {
            #expect(!dump.contains(token), "a token leaked into pg_dump output")
            #expect(!logs.contains(token), "a token leaked into worker logs")
        }
    }

    @Test("upload options: a changed nightly backup replaces the file with mode=overwrite, fails in add mode, is kept beside it with autorename")
    func writeModes() async throws {
        try await InProcessFleet.run("dbx_modes") { fleet in try await Self.writeModes(fleet) }
    }

    static func writeModes(_ fleet: InProcessFleet) async throws {
        let server = fleet.server, db = fleet.db
        try await fleet.addDropbox("nightly")
        let dir = try temporaryFolder("modes")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/backup.tar"
        // `ferry enqueue upload FILE --to dropbox:nightly:/Backups/ --key KEY [--option …]`, then its end.
        func upload(_ options: [String: OptionValue], key: String) async throws -> String {
            let jobs = try await fleet.client.enqueue([
                JobRequest(kind: .upload, source: file, to: "dropbox:nightly:/Backups/", idempotencyKey: key, options: options)
            ])
            let id = try #require(jobs.first).id.uuidString.lowercased()
            try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "job \(key) to finish") {
                try await count(
                    db, "SELECT count(*) FROM ferry.jobs WHERE job_id = $1::uuid AND state IN ('succeeded', 'failed')", [id]) == 1
            }
            return id
        }
        let worker = try fleet.worker("modes")
        try await fleet.running([worker]) {
            try DropboxAccounts.randomFile(file, size: 300_000)
            let first = try await upload([:], key: "night-1")
            #expect(try await Self.state(db, first).0 == "succeeded")

            try DropboxAccounts.randomFile(file, size: 310_000)
            let added = try await upload([:], key: "night-2-add")
            let (addState, addError) = try await Self.state(db, added)
            #expect(addState == "failed" && (addError ?? "").contains("destination_exists"), "\(addError ?? "")")

            // `--option mode=overwrite --option mute`: a bare name is the empty text, a true/false option set to true.
            let overwritten = try await upload(["mode": .commandLine("overwrite"), "mute": .commandLine("")], key: "night-2-overwrite")
            #expect(try await Self.state(db, overwritten).0 == "succeeded")
            let stored = server.storedFile(account: "nightly", path: "/Backups/backup.tar")
            #expect(try DropboxAccounts.sha256(stored) == DropboxAccounts.sha256(file), "the new version replaced the old one")

            try DropboxAccounts.randomFile(file, size: 320_000)
            let renamed = try await upload(["autorename": .commandLine("true")], key: "night-3-autorename")
            #expect(try await Self.state(db, renamed).0 == "succeeded")
            let copy = server.storedFile(account: "nightly", path: "/Backups/backup (1).tar")
            #expect(try DropboxAccounts.sha256(copy) == DropboxAccounts.sha256(file), "autorename kept both versions")
            let details = try await db.query("SELECT spec::text FROM ferry.jobs WHERE job_id = $1::uuid", [overwritten]).rows[0]
            let spec = try JSONValue.parse(try details.decode(String.self, at: 0))
            #expect(spec["mode"] == .string("overwrite") && spec["mute"] == .bool(true))
        }
    }

    @Test("a commit Dropbox stored with the wrong content is replaced by revision on the next attempt, never left or duplicated")
    func corruptedCommitIsReplaced() async throws {
        try await InProcessFleet.run("dbx_corrupt", configure: { $0.faults = FaultConfiguration(corruptCommitRate: 1) }) { fleet in
            try await Self.corruptedCommitIsReplaced(fleet)
        }
    }

    static func corruptedCommitIsReplaced(_ fleet: InProcessFleet) async throws {
        let server = fleet.server, db = fleet.db
        try await fleet.addDropbox("rot")
        let dir = try temporaryFolder("corrupt")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // One single-request upload and one upload session (4 MiB chunks), both in the default add mode.
        try DropboxAccounts.randomFile(dir + "/small.jpg", size: 200_000)
        try DropboxAccounts.randomFile(dir + "/large.bin", size: 9 * 1024 * 1024 + 5)
        try await fleet.enqueue([
            Self.upload(dir + "/small.jpg", to: "dropbox:rot:/Rot/", maxAttempts: 10),
            Self.upload(dir + "/large.bin", to: "dropbox:rot:/Rot/", maxAttempts: 10),
        ])

        let worker = try fleet.uploadWorker("rot", chunkMiB: 4)
        try await fleet.running([worker]) {
            try await eventually(timeout: .seconds(300), interval: .milliseconds(100), "both commits to be found corrupted") {
                try await count(db, "SELECT count(*) FROM ferry.jobs WHERE last_error LIKE '%content_hash_mismatch%'") == 2
            }
            try await server.setFaults([:])
            try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "both uploads to succeed") {
                try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 2
            }
        }

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

    @Test("chunks the server kept only half of: the worker resends just their tails, and the file is exact")
    func partialChunksResendTails() async throws {
        try await InProcessFleet.run("dbx_partial", configure: { $0.faults = FaultConfiguration(seed: 5, partialChunkRate: 0.4) }) { fleet in
            try await Self.partialChunksResendTails(fleet)
        }
    }

    static func partialChunksResendTails(_ fleet: InProcessFleet) async throws {
        let server = fleet.server, db = fleet.db
        try await fleet.addDropbox("tails")
        let dir = try temporaryFolder("partial")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let size = 24 * 1024 * 1024 + 77
        let chunk = 2 * 1024 * 1024
        try DropboxAccounts.randomFile(dir + "/tails.bin", size: size)
        try await fleet.enqueue([Self.upload(dir + "/tails.bin", to: "dropbox:tails:/tails.bin", maxAttempts: 10)])

        let log = LogRecorder()
        // Retries soon: a drop costs an attempt, and the subject is the resent tails, not the backoff (full jitter up
        // to 0.2 s · 2^n would let nine drops wait minutes).
        let worker = try fleet.uploadWorker("tails", chunkMiB: 2, variables: Self.sequentialSessions, log: log) {
            $0.retryPolicy = RetryPolicy(baseSeconds: 0.05, capSeconds: 0.5)
        }
        try await fleet.running([worker]) {
            do {
                try await eventually(timeout: .seconds(300), "the upload to end") {
                    try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state IN ('succeeded', 'failed')") == 1
                }
            } catch {
                let events = try await db.query("SELECT type || ' ' || data::text FROM ferry.events ORDER BY position").rows
                    .map { try $0.decode(String.self, at: 0) }
                Issue.record("\(error)\nevents:\n\(events.joined(separator: "\n").suffix(4000))\nlog:\n\(log.all.joined(separator: "\n").suffix(6000))")
                throw error
            }
            let ended = try await db.query("SELECT state, coalesce(last_error, '') FROM ferry.jobs").rows[0]
            let (state, lastError) = (try ended.decode(String.self, at: 0), try ended.decode(String.self, at: 1))
            try #require(state == "succeeded", "\(lastError): \(log.all.joined(separator: "\n").suffix(3000))")
        }

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

    @Test("a revoked refresh token holds the account's jobs without burning attempts; login releases them")
    func invalidGrantHoldsJobs() async throws {
        try await InProcessFleet.run("dbx_held") { fleet in try await Self.invalidGrantHoldsJobs(fleet) }
    }

    static func invalidGrantHoldsJobs(_ fleet: InProcessFleet) async throws {
        let server = fleet.server, db = fleet.db
        // `ferry account add family --provider dropbox --no-verify`: no access token yet.
        let refreshToken = try await server.refreshToken(for: "family")
        try await fleet.addAccount(
            "family", provider: "dropbox",
            values: ["app-key": DevServerProcess.appKey, "api-url": server.baseURL, "content-url": server.baseURL, "authorize-url": server.baseURL],
            secrets: ["app-secret": server.appSecret, "refresh-token": refreshToken], verify: false)
        // Sign out on the provider's side (another app did it): refresh token and its access tokens die.
        let form = "grant_type=refresh_token&refresh_token=\(refreshToken)&client_id=\(DevServerProcess.appKey)&client_secret=\(server.appSecret)"
        let grant = try await server.request(
            "POST", "/oauth2/token", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(form.utf8))
        let access = try #require(grant["access_token"]?.stringValue)
        _ = try await server.raw("POST", "/2/auth/token/revoke", headers: ["Authorization": "Bearer \(access)"])

        let dir = try temporaryFolder("held")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try DropboxAccounts.randomFile(dir + "/a.jpg", size: 10_000)
        try await fleet.enqueue([Self.upload(dir + "/a.jpg", to: "dropbox:family:/a.jpg")])
        let worker = try fleet.worker("held")
        try await fleet.running([worker]) {
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

            // Log in again (PKCE): the URL the command prints, "click Allow", the code pasted.
            try await fleet.login("family")
            try await eventually(timeout: .seconds(300), "the held job to run after login") {
                try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 1
            }
        }
    }

    @Test("a worker's own FERRY_DROPBOX_* settings reach its upload handler, not the test process's")
    func workerVariables() async throws {
        try await InProcessFleet.run("dbx_variables") { fleet in
            let roots = try LocalRoots(directories: [FileManager.default.temporaryDirectory.path])
            func uploads(_ variables: [String: String]) throws -> DropboxUploadHandler {
                let handlers = JobHandlers.fleet(
                    .standard, store: fleet.store, box: fleet.box, http: fleet.http, workerName: "vars", chunkBytes: 2 << 20, roots: roots,
                    variables: variables, logger: InProcessFleet.quiet)
                return try #require(handlers.table[JobHandlers.Key(kind: .upload, scheme: "dropbox")] as? DropboxUploadHandler)
            }
            let tuned = try uploads(Self.sequentialSessions.merging(["FERRY_DROPBOX_BATCH_WINDOW_MS": "3000"]) { $1 })
            #expect(tuned.parallelAppends == 1 && tuned.commitBatcher?.window == .milliseconds(3000))
            #expect(tuned.chunkSize == DropboxUploadHandler.chunkGranularity, "2 MiB rounded up to Dropbox's 4 MiB")
            #expect(try uploads(["FERRY_DROPBOX_COMMIT": "single"]).commitBatcher == nil)
            let plain = try uploads([:])
            #expect(plain.parallelAppends == 4 && plain.commitBatcher?.window == DropboxBatchSettings().window)
        }
    }
}
