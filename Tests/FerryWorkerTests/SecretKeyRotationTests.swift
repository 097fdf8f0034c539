import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A worker with the wrong FERRY_SECRET_KEY, and key rotation with `ferry account rekey`: real workers, a real
/// dev server, real PostgreSQL.
@Suite("secret key rotation", .tags(.postgres, .process), .serialized)
struct SecretKeyRotationTests {
    static func randomKey() -> String {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64EncodedString()
    }

    static func worker(_ db: TestDatabase, key: String, name: String) throws -> BackgroundProcess {
        try BackgroundProcess(
            ferry: ["worker", "--name", name, "--heartbeat-interval", "0.3", "--rescue-after", "4", "--poll-interval", "0.5",
                    "--log-level", "info", "--retry-base", "0.2"],
            databaseURL: db.url, environment: ["FERRY_SECRET_KEY": key])
    }

    @Test("a worker with the wrong key exits 78 and fails no job; after rekey a worker with the new key runs the account's job, and the old key opens nothing")
    func wrongKeyThenRekey() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("rekey")
        try await DropboxAccounts.add("photos", server: server, databaseURL: db.url)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-rekey-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try DropboxAccounts.randomFile(dir + "/a.jpg", size: 20_000)
        let enqueued = try await FerryProcess.run(["enqueue", "upload", dir + "/a.jpg", "--to", "dropbox:photos:/a.jpg"], databaseURL: db.url)
        #expect(enqueued.status == 0, "\(enqueued.stderr)")

        // The wrong key: the worker refuses to start, names the problem and the fix, prints no key.
        let wrongKey = Self.randomKey()
        let wrong = try Self.worker(db, key: wrongKey, name: "wrong")
        let status = try await wrong.waitForExit()
        #expect(status == 78, "\(wrong.log)")
        #expect(wrong.log.contains("FERRY_SECRET_KEY does not open the secrets in this database") && wrong.log.contains("'photos'"), "\(wrong.log)")
        #expect(wrong.log.contains("fix:") && wrong.log.contains("ferry account rekey"), "\(wrong.log)")
        #expect(!wrong.log.contains(wrongKey) && !wrong.log.contains(DropboxAccounts.secretKey))
        let job = try await db.query("SELECT state, attempt FROM ferry.jobs").rows[0]
        #expect(try job.decode(String.self, at: 0) == "queued")
        #expect(try job.decode(Int.self, at: 1) == 0, "no attempt was spent")

        // Rotate: old key and new key from files.
        let newKey = Self.randomKey()
        let oldFile = dir + "/old.key"
        let newFile = dir + "/new.key"
        try DropboxAccounts.secretKey.write(toFile: oldFile, atomically: true, encoding: .utf8)
        try newKey.write(toFile: newFile, atomically: true, encoding: .utf8)
        let rekey = try await FerryProcess.run(
            ["account", "rekey", "--old-key-file", oldFile, "--new-key-file", newFile], databaseURL: db.url)
        #expect(rekey.status == 0, "\(rekey.stderr)")
        #expect(rekey.stdout.contains("re-sealed 1 account(s)") && rekey.stdout.contains("photos"), "\(rekey.stdout)")
        #expect(!rekey.stdout.contains(newKey) && !rekey.stderr.contains(newKey))
        let events = try await db.query(
            "SELECT count(*), string_agg(data::text, ' ') FROM ferry.account_events WHERE type = 'updated' AND data->>'change' = 'rekeyed'").rows[0]
        #expect(try events.decode(Int.self, at: 0) == 1, "the rotation is in the account's history")
        #expect(try !(events.decode(String.self, at: 1)).contains(newKey))
        // Run again: nothing left to re-seal.
        let again = try await FerryProcess.run(
            ["account", "rekey", "--old-key-file", oldFile], databaseURL: db.url, environment: ["FERRY_SECRET_KEY_FILE": newFile])
        #expect(again.status == 0 && again.stdout.contains("re-sealed 0 account(s)"), "\(again.stdout)\(again.stderr)")

        // The old key opens nothing now: a worker with it refuses to start, as the wrong key did.
        let stale = try Self.worker(db, key: DropboxAccounts.secretKey, name: "stale")
        #expect(try await stale.waitForExit() == 78, "\(stale.log)")
        #expect(stale.log.contains("FERRY_SECRET_KEY does not open the secrets in this database"), "\(stale.log)")
        let show = try await FerryProcess.run(
            ["account", "revoke", "photos"], databaseURL: db.url, environment: ["FERRY_SECRET_KEY": DropboxAccounts.secretKey])
        #expect(show.status == 78, "\(show.stderr)")

        // The new key runs the account's job.
        let worker = try Self.worker(db, key: newKey, name: "new")
        try await eventually(timeout: .seconds(300), "the account's job to succeed") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 1
        }
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'failed'") == 0)
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()
        #expect(!worker.log.contains(newKey))
    }

    @Test("an account stored before schema 30 (its one secret in app_secret_sealed) still runs its jobs; rekey moves the secret into its kind's shape and they still run")
    func legacySecretUpgrade() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("rekeylegacy")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-rekeylegacy-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try await FlickrFetchTests.seedUser(server, "31313131@N01", count: 3)
        try await FlickrFetchTests.addAccount("stream", key: FlickrFetchTests.devKey, server: server, db: db)
        // As schema 29 stored it: the API key alone, sealed for the app_secret field, and no secrets_sealed.
        let box = SecretBox(key: try SecretKey(text: DropboxAccounts.secretKey))
        let legacy = try box.seal(FlickrFetchTests.devKey, context: "ferry.accounts/stream/app_secret")
        try await db.query(
            "UPDATE ferry.accounts SET app_secret_sealed = $1::bytea, secrets_sealed = NULL WHERE name = 'stream'",
            [PostgresBytes(legacy)])
        let list = try await FerryProcess.run(["account", "list", "--json"], databaseURL: db.url)
        #expect(list.stdout.contains(#""has_secrets":true"#), "\(list.stdout)")

        func fetchAll(_ batch: String, key: String) async throws {
            let enqueued = try await FerryProcess.run(
                ["enqueue", "fetch", "flickr:31313131@N01", "--to", dir + "/\(batch)/", "--size", "s", "--batch", batch],
                databaseURL: db.url)
            #expect(enqueued.status == 0, "\(enqueued.stderr)")
            let worker = try Self.worker(db, key: key, name: "w-\(batch)")
            try await eventually(timeout: .seconds(300), "batch \(batch) to finish") { try await WorkerFixtures.batchDone(db, batch) }
            worker.signal(SIGTERM)
            _ = try await worker.waitForExit()
            // The listing and its three photos: a wrong or missing API key fails the listing for good.
            #expect(
                try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = '\(batch)' AND state = 'succeeded'") == 4,
                "\(worker.log)")
        }
        try await fetchAll("before", key: DropboxAccounts.secretKey)

        let newKey = Self.randomKey()
        let rekey = try await FerryProcess.run(
            ["account", "rekey"], databaseURL: db.url,
            environment: ["FERRY_OLD_SECRET_KEY": DropboxAccounts.secretKey, "FERRY_SECRET_KEY": newKey])
        #expect(rekey.status == 0, "\(rekey.stderr)")
        let row = try await db.query(
            "SELECT secrets_sealed IS NOT NULL, app_secret_sealed IS NULL FROM ferry.accounts WHERE name = 'stream'").rows[0]
        #expect(try row.decode(Bool.self, at: 0) && row.decode(Bool.self, at: 1), "moved into the kind's shape")
        try await fetchAll("after", key: newKey)
    }

    @Test("rekey with an old key that opens nothing changes nothing")
    func rekeyWithWrongOldKey() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("rekeywrong")
        try await DropboxAccounts.add("photos", server: server, databaseURL: db.url)
        let before = try await db.query("SELECT encode(refresh_token_sealed, 'hex'), key_id FROM ferry.accounts").rows[0]
        let result = try await FerryProcess.run(
            ["account", "rekey"], databaseURL: db.url,
            environment: ["FERRY_OLD_SECRET_KEY": Self.randomKey(), "FERRY_SECRET_KEY": Self.randomKey()])
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.contains("the old key does not open") && result.stderr.contains("nothing was changed"), "\(result.stderr)")
        let after = try await db.query("SELECT encode(refresh_token_sealed, 'hex'), key_id FROM ferry.accounts").rows[0]
        #expect(try before.decode(String.self, at: 0) == after.decode(String.self, at: 0))
        #expect(try before.decode(String.self, at: 1) == after.decode(String.self, at: 1))
        #expect(try await count(db, "SELECT count(*) FROM ferry.account_events WHERE type = 'updated'") == 0)
    }

    @Test("a worker still running with the old key when rekey re-seals the account defers the account's job without using an attempt; a worker with the new key then runs it")
    func rekeyUnderARunningWorker() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("rekeylive")
        try await DropboxAccounts.add("photos", server: server, databaseURL: db.url)
        let old = try Self.worker(db, key: DropboxAccounts.secretKey, name: "old")
        try await eventually(timeout: .seconds(300), "the old-key worker to start") {
            try await count(db, "SELECT count(*) FROM ferry.workers WHERE name = 'old'") == 1
        }
        let newKey = Self.randomKey()
        let rekey = try await FerryProcess.run(
            ["account", "rekey"], databaseURL: db.url,
            environment: ["FERRY_OLD_SECRET_KEY": DropboxAccounts.secretKey, "FERRY_SECRET_KEY": newKey])
        #expect(rekey.status == 0, "\(rekey.stderr)")

        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-rekeylive-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try DropboxAccounts.randomFile(dir + "/a.jpg", size: 20_000)
        let enqueued = try await FerryProcess.run(["enqueue", "upload", dir + "/a.jpg", "--to", "dropbox:photos:/a.jpg"], databaseURL: db.url)
        #expect(enqueued.status == 0, "\(enqueued.stderr)")
        try await eventually(timeout: .seconds(300), "the old-key worker to defer the job") {
            try await count(
                db, "SELECT count(*) FROM ferry.events WHERE type = 'deferred' AND data::text LIKE '%secret_key_mismatch%'") >= 1
        }
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'failed'") == 0)
        #expect(!old.log.contains(newKey) && !old.log.contains(DropboxAccounts.secretKey))

        old.signal(SIGTERM)
        _ = try await old.waitForExit()
        let worker = try Self.worker(db, key: newKey, name: "new")
        try await eventually(timeout: .seconds(300), "the new-key worker to run the job") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 1
        }
        #expect(try await count(db, "SELECT attempt FROM ferry.jobs") == 1, "the deferred attempts were given back")
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()
    }

    /// Re-seals every sealed value of `account` from key `old` to key `new`, as `ferry account add` run with another
    /// key left an account before it checked the key against the database's.
    static func reseal(_ account: String, _ db: TestDatabase, from old: String, to new: String) async throws {
        let (oldBox, newBox) = (SecretBox(key: try SecretKey(text: old)), SecretBox(key: try SecretKey(text: new)))
        for field in ["secrets", "app_secret", "refresh_token", "access_token"] {
            let row = try await db.query("SELECT encode(\(field)_sealed, 'base64') FROM ferry.accounts WHERE name = $1", [account]).rows[0]
            guard let base64 = try row.decode(String?.self, at: 0), let data = Data(base64Encoded: base64.filter { !$0.isWhitespace }) else {
                continue
            }
            let context = "ferry.accounts/\(account)/\(field)"
            let plain = try oldBox.open(Array(data), context: context, keyID: nil)
            try await db.query(
                "UPDATE ferry.accounts SET \(field)_sealed = $2::bytea WHERE name = $1",
                [account, PostgresBytes(try newBox.seal(plain, context: context))])
        }
        try await db.query("UPDATE ferry.accounts SET key_id = $2 WHERE name = $1", [account, newBox.key.id])
    }

    @Test("an account sealed with a stray key is held with the reason and the fix, not deferred as rate limited; workers restart past it; rekey from the stray key releases it and its job runs")
    func strayKeyAccountIsHeld() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("strayheld")
        try await DropboxAccounts.add("photos", server: server, databaseURL: db.url)
        try await DropboxAccounts.add("other", server: server, databaseURL: db.url)
        let first = try Self.worker(db, key: DropboxAccounts.secretKey, name: "first")
        try await eventually(timeout: .seconds(300), "the first worker to start") {
            try await count(db, "SELECT count(*) FROM ferry.workers WHERE name = 'first'") == 1
        }
        let stray = Self.randomKey()
        let strayID = try SecretKey(text: stray).id
        try await Self.reseal("other", db, from: DropboxAccounts.secretKey, to: stray)

        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-strayheld-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try DropboxAccounts.randomFile(dir + "/a.jpg", size: 20_000)
        let enqueued = try await FerryProcess.run(["enqueue", "upload", dir + "/a.jpg", "--to", "dropbox:other:/a.jpg"], databaseURL: db.url)
        #expect(enqueued.status == 0, "\(enqueued.stderr)")
        try await eventually(timeout: .seconds(300), "the account to be held") {
            try await count(db, "SELECT count(*) FROM ferry.accounts WHERE name = 'other' AND status = 'needs_reauth'") == 1
        }
        let reason = try await db.query("SELECT status_reason FROM ferry.accounts WHERE name = 'other'").rows[0].decode(String.self, at: 0)
        #expect(reason.contains("sealed with key fingerprint \(strayID)") && reason.contains("fix:") && reason.contains("ferry account rekey"), "\(reason)")
        #expect(!reason.contains(stray) && !reason.contains(DropboxAccounts.secretKey))
        #expect(try await count(
            db, "SELECT count(*) FROM ferry.account_events WHERE type = 'needs_reauth' AND data->>'code' = 'secret_key_mismatch'") == 1)
        try await eventually(timeout: .seconds(60), "the job to be back in the queue, held") {
            try await db.query("SELECT status FROM ferry.job_status").rows[0].decode(String.self, at: 0) == "held"
        }
        let held = try await db.query("SELECT attempt, held_reason FROM ferry.job_status").rows[0]
        #expect(try held.decode(Int.self, at: 0) == 0, "no attempt was spent")
        #expect(try held.decode(String?.self, at: 1)?.contains("sealed with key fingerprint \(strayID)") == true)
        #expect(try await count(db, "SELECT count(*) FROM ferry.events WHERE type = 'deferred'") == 0, "not deferred as rate limited")
        #expect(!first.log.contains("rate limited"), "\(first.log)")
        #expect(try await count(db, "SELECT count(*) FROM ferry.accounts WHERE name = 'photos' AND status = 'active'") == 1)

        // The next deploy: a worker with the database's key starts (it used to exit 78 here).
        first.signal(SIGTERM)
        _ = try await first.waitForExit()
        let second = try Self.worker(db, key: DropboxAccounts.secretKey, name: "second")
        try await eventually(timeout: .seconds(300), "the second worker to start") {
            try await count(db, "SELECT count(*) FROM ferry.workers WHERE name = 'second'") == 1
        }
        #expect(second.log.contains("held accounts whose secrets this FERRY_SECRET_KEY does not open"), "\(second.log)")

        // The fix the reason names: re-seal it from the stray key under the workers' key; the job runs.
        let strayFile = dir + "/stray.key"
        try stray.write(toFile: strayFile, atomically: true, encoding: .utf8)
        let rekey = try await FerryProcess.run(
            ["account", "rekey", "--old-key-file", strayFile], databaseURL: db.url, environment: DropboxAccounts.environment)
        #expect(rekey.status == 0 && rekey.stdout.contains("re-sealed 1 account(s)") && rekey.stdout.contains("other"), "\(rekey.stdout)\(rekey.stderr)")
        #expect(try await count(db, "SELECT count(*) FROM ferry.accounts WHERE status = 'active'") == 2)
        try await eventually(timeout: .seconds(300), "the held job to succeed") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 1
        }
        second.signal(SIGTERM)
        _ = try await second.waitForExit()
    }
}
