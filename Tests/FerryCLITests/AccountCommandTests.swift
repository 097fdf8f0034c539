import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// `ferry account …` against a real database and a real dev server.
@Suite("ferry account", .tags(.postgres, .process))
struct AccountCommandTests {
    static func run(_ arguments: [String], _ db: TestDatabase, stdin: String? = nil, key: String? = DropboxAccounts.secretKey) async throws -> FerryProcess.Result {
        try await FerryProcess.run(
            ["account"] + arguments, databaseURL: db.url, stdin: stdin,
            environment: key.map { ["FERRY_SECRET_KEY": $0] } ?? ["FERRY_SECRET_KEY": ""])
    }

    static func accountRows(_ db: TestDatabase) async throws -> Int {
        try await db.query("SELECT count(*) FROM ferry.accounts").rows[0].decode(Int.self, at: 0)
    }

    @Test("secrets need a key: missing or malformed FERRY_SECRET_KEY is a clear error and stores nothing")
    func keyRequired() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("acct_key")
        let token = try await server.refreshToken(for: "k")
        let args = ["add", "k", "--provider", "dropbox", "--app-key", DevServerProcess.appKey, "--refresh-token-file", "-"] + server.urlOptions + server.secretOptions
        let missing = try await Self.run(args, db, stdin: token, key: nil)
        #expect(missing.status == 78)
        #expect(missing.stderr.contains("FERRY_SECRET_KEY") && missing.stderr.contains("head -c 32 /dev/urandom | base64"))
        let malformed = try await Self.run(args, db, stdin: token, key: "short")
        #expect(malformed.status == 78)
        #expect(malformed.stderr.contains("32 random bytes"))
        #expect(!missing.stderr.contains(token) && !malformed.stderr.contains(token))
        #expect(try await Self.accountRows(db) == 0)
    }

    @Test("each provider takes only its own account options; the others are refused by name and nothing is stored")
    func providerAccountOptions() async throws {
        let db = try await TestDatabase.make("acct_options")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-acct-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "flickr-api-key-123".write(toFile: dir + "/key", atomically: true, encoding: .utf8)

        let region = try await Self.run(["add", "d", "--provider", "dropbox", "--app-key", "k", "--region", "us-east-1"], db)
        #expect(region.status == 64)
        #expect(region.stderr.contains("--region is not an option for dropbox accounts"), "\(region.stderr)")
        let token = try await Self.run(
            ["add", "f", "--provider", "flickr", "--api-key-file", dir + "/key", "--refresh-token-file", dir + "/key"], db)
        #expect(token.status == 64)
        #expect(token.stderr.contains("--refresh-token-file is not an option for flickr accounts") && token.stderr.contains("--api-key-file"))
        let unknown = try await Self.run(["add", "x", "--provider", "ftp"], db)
        #expect(unknown.status == 64 && unknown.stderr.contains("--provider must be one of: dropbox, flickr, s3"), "\(unknown.stderr)")
        #expect(try await Self.accountRows(db) == 0)

        let flickr = try await Self.run(["add", "f", "--provider", "flickr", "--api-key-file", dir + "/key", "--no-verify"], db)
        #expect(flickr.status == 0, "\(flickr.stderr)")
        let row = try await db.query("SELECT status, settings::text FROM ferry.accounts WHERE name = 'f'").rows[0]
        #expect(try row.decode(String.self, at: 0) == "active" && row.decode(String.self, at: 1) == "{}")
        let sealed = try await db.query(
            "SELECT secrets_sealed::text, app_secret_sealed IS NULL FROM ferry.accounts WHERE name = 'f'").rows[0]
        #expect(try !sealed.decode(String.self, at: 0).contains("flickr-api-key"), "the API key is sealed")
        #expect(try sealed.decode(Bool.self, at: 1), "the kind's secrets are one sealed value, not the old app_secret")
    }

    @Test("add checks the refresh token with the provider, stores it sealed, and records the event")
    func addVerifiesAndSeals() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("acct_add")
        let base = ["--provider", "dropbox", "--app-key", DevServerProcess.appKey, "--refresh-token-file", "-"] + server.urlOptions + server.secretOptions

        let rejected = try await Self.run(["add", "bad"] + base, db, stdin: "not-a-real-token")
        #expect(rejected.status == 65)
        #expect(rejected.stderr.contains("invalid_grant"))
        #expect(!rejected.stderr.contains("not-a-real-token"))
        #expect(try await Self.accountRows(db) == 0, "nothing half done")

        let token = try await server.refreshToken(for: "photos")
        let added = try await Self.run(["add", "photos"] + base, db, stdin: token + "\n")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(!added.stdout.contains(token) && !added.stderr.contains(token))

        let again = try await Self.run(["add", "photos"] + base, db, stdin: token)
        #expect(again.status == 65)
        #expect(again.stderr.contains("exists already"))

        let list = try await Self.run(["list", "--json"], db)
        let accounts = try JSONValue.parse(list.stdout)
        #expect(accounts.jsonText.contains(#""status":"active""#))
        #expect(accounts.jsonText.contains(#""has_refresh_token":true"#))
        #expect(!list.stdout.contains(token))
        let show = try await Self.run(["show", "photos"], db)
        #expect(show.stdout.contains("stored (encrypted)") && show.stdout.contains("added"))

        // At rest: ciphertext only, in every column.
        let row = try await db.query("SELECT a::text FROM ferry.accounts a").rows[0].decode(String.self, at: 0)
        #expect(!row.contains(token))
        let events = try await db.query("SELECT string_agg(data::text, ' ') FROM ferry.account_events").rows[0].decode(String.self, at: 0)
        #expect(!events.contains(token))

        // A different key cannot open it, and says so.
        let otherKey = SecretKeyText.random()
        let wrongKey = try await FerryProcess.run(
            ["account", "revoke", "photos"], databaseURL: db.url, environment: ["FERRY_SECRET_KEY": otherKey])
        #expect(wrongKey.status == 78)
        #expect(wrongKey.stderr.contains("is not the key this database's secrets are sealed with"), "\(wrongKey.stderr)")
    }

    @Test("a second key is refused by add, login, update and revoke: exit 78, the problem and the fix named, no key printed, nothing written")
    func secondKeyRefused() async throws {
        let db = try await TestDatabase.make("acct_second_key")
        let first = try await Self.run(["add", "first", "--provider", "flickr", "--api-key-file=-", "--no-verify"], db, stdin: "key-1\n")
        #expect(first.status == 0, "\(first.stderr)")
        let eventsBefore = try await db.query("SELECT count(*) FROM ferry.account_events").rows[0].decode(Int.self, at: 0)
        let otherKey = SecretKeyText.random()
        let firstID = try SecretKey(text: DropboxAccounts.secretKey).id
        let otherID = try SecretKey(text: otherKey).id

        let add = try await Self.run(["add", "second", "--provider", "flickr", "--api-key-file=-", "--no-verify"], db, stdin: "key-2\n", key: otherKey)
        #expect(add.status == 78, "\(add.stderr)")
        #expect(add.stderr.contains("FERRY_SECRET_KEY is not the key this database's secrets are sealed with"), "\(add.stderr)")
        #expect(add.stderr.contains("'first'") && add.stderr.contains(firstID) && add.stderr.contains(otherID), "\(add.stderr)")
        #expect(add.stderr.contains("fix: set FERRY_SECRET_KEY") && add.stderr.contains("ferry account rekey"), "\(add.stderr)")
        #expect(add.stderr.contains("nothing was written"), "\(add.stderr)")
        #expect(!add.stderr.contains(otherKey) && !add.stderr.contains(DropboxAccounts.secretKey) && !add.stderr.contains("key-2"))

        // A new OAuth account: refused before the authorize URL is printed or a code is read.
        let login = try await Self.run(["login", "third", "--provider", "dropbox", "--app-key", "abc"], db, stdin: "code\n", key: otherKey)
        #expect(login.status == 78 && login.stderr.contains("is not the key this database's secrets are sealed with"), "\(login.stderr)")
        #expect(!login.stderr.contains("Open this URL"), "\(login.stderr)")
        let update = try await Self.run(["update", "first", "--max-concurrent", "9"], db, key: otherKey)
        #expect(update.status == 78 && update.stderr.contains("is not the key this database's secrets are sealed with"), "\(update.stderr)")
        #expect(try await Self.accountRows(db) == 1)
        #expect(try await db.query("SELECT count(*) FROM ferry.account_events").rows[0].decode(Int.self, at: 0) == eventsBefore)
        #expect(try await db.query("SELECT max_concurrent FROM ferry.accounts").rows[0].decode(Int.self, at: 0) == 4)

        // Update needs no key: without one it runs; with the database's key, add does too.
        let keyless = try await Self.run(["update", "first", "--max-concurrent", "9"], db, key: nil)
        #expect(keyless.status == 0, "\(keyless.stderr)")
        let second = try await Self.run(["add", "second", "--provider", "flickr", "--api-key-file=-", "--no-verify"], db, stdin: "key-2\n")
        #expect(second.status == 0, "\(second.stderr)")
    }

    @Test("revoke signs out at the provider and forgets the tokens; remove refuses while jobs are unfinished")
    func revokeAndRemove() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("acct_revoke")
        let token = try await DropboxAccounts.add("old", server: server, databaseURL: db.url)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-acct-\(UUID().uuidString).jpg").path
        try DropboxAccounts.randomFile(file, size: 1000)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let enqueued = try await FerryProcess.run(["enqueue", "upload", file, "--to", "dropbox:old:/x.jpg"], databaseURL: db.url)
        #expect(enqueued.status == 0, "\(enqueued.stderr)")

        let revoked = try await Self.run(["revoke", "old"], db)
        #expect(revoked.status == 0, "\(revoked.stderr)")
        #expect(revoked.stdout.contains("revoked at the provider"))
        // The provider no longer accepts the refresh token.
        let form = "grant_type=refresh_token&refresh_token=\(token)&client_id=\(DevServerProcess.appKey)&client_secret=\(server.appSecret)"
        let (_, status) = try await server.raw(
            "POST", "/oauth2/token", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(form.utf8))
        #expect(status == 400)
        let state = try await db.query("SELECT status, refresh_token_sealed IS NULL, access_token_sealed IS NULL FROM ferry.accounts").rows[0]
        #expect(try state.decode(String.self, at: 0) == "revoked")
        #expect(try state.decode(Bool.self, at: 1) && state.decode(Bool.self, at: 2))
        let held = try await db.query("SELECT status FROM ferry.job_status").rows[0].decode(String.self, at: 0)
        #expect(held == "held")

        let refused = try await Self.run(["remove", "old"], db)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("unfinished"))
        let jobID = try await db.query("SELECT job_id::text FROM ferry.jobs").rows[0].decode(String.self, at: 0)
        #expect(try await FerryProcess.run(["cancel", jobID], databaseURL: db.url).status == 0)
        let removed = try await Self.run(["remove", "old"], db)
        #expect(removed.status == 0, "\(removed.stderr)")
        let types = try await db.query("SELECT string_agg(type, ',' ORDER BY position) FROM ferry.account_events").rows[0].decode(String.self, at: 0)
        #expect(types == "added,revoked,removed")
    }

    @Test("show prints each kind's own fields: S3 its keys and region, Flickr its API key, never Dropbox's words")
    func showPerKind() async throws {
        let db = try await TestDatabase.make("acct_show_kinds")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-show-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "AKIDEXAMPLE".write(toFile: dir + "/id", atomically: true, encoding: .utf8)
        try "wJalrXUtnFEMI".write(toFile: dir + "/secret", atomically: true, encoding: .utf8)
        let s3 = try await Self.run(
            ["add", "archive", "--provider", "s3", "--region", "eu-central-1", "--path-style", "--access-key-id-file", dir + "/id",
             "--secret-access-key-file", "-", "--no-verify"], db, stdin: "wJalrXUtnFEMI\n")
        #expect(s3.status == 0, "\(s3.stderr)")
        let flickr = try await Self.run(["add", "stream", "--provider", "flickr", "--api-key-file=-", "--no-verify"], db, stdin: "key\n")
        #expect(flickr.status == 0, "\(flickr.stderr)")

        func rows(_ name: String) async throws -> [String: String] {
            let show = try await Self.run(["show", name], db)
            #expect(show.status == 0, "\(show.stderr)")
            #expect(!show.stdout.contains("AKIDEXAMPLE") && !show.stdout.contains("wJalrXUtnFEMI"), "never a secret")
            var rows = [String: String]()
            for line in show.stdout.split(separator: "\n").prefix(while: { !$0.hasPrefix("history") }) where line.count > 22 {
                rows[String(line.prefix(22)).trimmingCharacters(in: .whitespaces)] = String(line.dropFirst(22))
            }
            return rows
        }
        let s3Rows = try await rows("archive")
        #expect(s3Rows["access keys"] == "stored (encrypted)" && s3Rows["region"] == "eu-central-1", "\(s3Rows)")
        #expect(s3Rows["path style"] == "yes" && s3Rows["endpoint url"] == "(provider default)", "\(s3Rows)")
        let flickrRows = try await rows("stream")
        #expect(flickrRows["api key"] == "stored (encrypted)" && flickrRows["photo url"] == "(provider default)", "\(flickrRows)")
        let json = try JSONValue.parse(try await Self.run(["show", "archive", "--json"], db).stdout)
        #expect(json["fields"]?["access keys"] == .string("stored (encrypted)") && json["fields"]?["region"] == .string("eu-central-1"))
        for dropboxWord in ["app key", "app secret", "refresh token", "authorize url"] {
            #expect(s3Rows[dropboxWord] == nil && flickrRows[dropboxWord] == nil, "\(dropboxWord)")
        }

        // A kind's options are its own, in every form; login and revoke belong to the kinds that have them.
        let twice = try await Self.run(["add", "x", "--provider", "s3", "--region", "a", "--region=b"], db)
        #expect(twice.status == 64 && twice.stderr.contains("--region is given twice"), "\(twice.stderr)")
        let revoke = try await Self.run(["revoke", "archive"], db)
        #expect(revoke.status == 64 && revoke.stderr.contains("nothing to revoke"), "\(revoke.stderr)")
        let login = try await Self.run(["login", "stream"], db)
        #expect(login.status == 64 && login.stderr.contains("login is for accounts linked with OAuth or a token (dropbox, gdrive, onedrive, instagram)"), "\(login.stderr)")
    }
}

/// A random key in the documented format.
enum SecretKeyText {
    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64EncodedString()
    }
}
