import Crypto
import FerryCore
import FerryTestSupport
import Foundation
import Testing

/// Google Drive end to end: a fleet of `ferry worker` processes writing one new tree (Drive allows same-name
/// siblings, so only coordination keeps folders single) and a `kill -9` mid-upload (`.process`); copies in both
/// directions with the other providers through the capability seam, and a folder deleted behind Ferry's back, in
/// process (`InProcessFleet`).
@Suite("Google Drive end to end", .tags(.postgres), .serialized)
struct GoogleDriveFleetTests {
    /// Adds a Drive account linked on the dev server; answers nothing (the refresh token went in through stdin).
    static func addAccount(_ name: String, server: DevServerProcess, db: TestDatabase) async throws {
        let reply = try await server.request("POST", "/__dev/gdrive/accounts", json: .object(["account": .string(name)]))
        let token = try #require(reply["refresh_token"]?.stringValue)
        let result = try await FerryProcess.run(
            ["account", "add", name, "--provider", "gdrive", "--client-id", DevServerProcess.appKey, "--client-secret-file", server.appSecretFile,
             "--refresh-token-file", "-", "--api-url", server.baseURL],
            databaseURL: db.url, stdin: token + "\n", environment: DropboxAccounts.environment)
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// `ferry account add NAME --provider gdrive` in process, linked on the fleet's dev server.
    static func addAccount(_ name: String, fleet: InProcessFleet) async throws {
        let reply = try await fleet.server.request("POST", "/__dev/gdrive/accounts", json: .object(["account": .string(name)]))
        let token = try #require(reply["refresh_token"]?.stringValue)
        try await fleet.addAccount(
            name, provider: "gdrive", values: ["client-id": DevServerProcess.appKey, "api-url": fleet.server.baseURL],
            secrets: ["client-secret": fleet.server.appSecret, "refresh-token": token])
    }

    /// Every item of the account with its path (folders end without /; same-name siblings share a path).
    static func items(_ server: any DevServerControl, _ account: String) async throws -> [JSONValue] {
        try await server.request("POST", "/__dev/gdrive/items", json: .object(["account": .string(account)]))["items"]?.arrayValue ?? []
    }

    static func md5(_ path: String) throws -> String {
        Insecure.MD5.hash(data: try Data(contentsOf: URL(fileURLWithPath: path))).map { String(format: "%02x", $0) }.joined()
    }

    static func waitForBatch(_ db: TestDatabase, _ batch: String) async throws {
        try await eventually(timeout: .seconds(300), "batch \(batch) to finish") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = $1 AND state NOT IN ('succeeded', 'failed', 'cancelled')", [batch]) == 0
        }
    }

    @Test(
        "four worker processes write one new three-level tree into Drive: every folder and every file exactly once, with its bytes",
        .tags(.process))
    func fleetWritesOneTree() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("gdrive_fleet")
        try await Self.addAccount("fleet", server: server, db: db)
        let dir = try temporaryFolder("gdrivefleet")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var expected = [String: String]()
        for top in 0..<3 {
            for sub in 0..<4 {
                let folder = "\(dir)/tree/year-\(top)/month-\(sub)"
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                for file in 0..<8 {
                    let relative = "year-\(top)/month-\(sub)/p\(file).jpg"
                    try DropboxAccounts.randomFile("\(dir)/tree/\(relative)", size: 1000 + file * 37)
                    expected[relative] = try Self.md5("\(dir)/tree/\(relative)")
                }
            }
        }
        let enqueued = try await FerryProcess.run(
            ["enqueue", "upload", dir + "/tree/", "--recursive", "--to", "gdrive:fleet:/Backup/2025/", "--batch", "fleet"], databaseURL: db.url)
        #expect(enqueued.status == 0, "\(enqueued.stderr)")
        // Four machines' worth of workers, all starting on the same empty Drive at once.
        let workers = try (0..<4).map { try TestWorker.transfers(db, name: "fleet-\($0)", ["--concurrency", "8"]) }
        try await Self.waitForBatch(db, "fleet")
        for worker in workers { worker.signal(SIGTERM) }
        for worker in workers { _ = try await worker.waitForExit() }
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'fleet' AND state <> 'succeeded'") == 0)

        let items = try await Self.items(server, "fleet")
        let paths = items.compactMap { $0["path"]?.stringValue }
        let doubled = Dictionary(grouping: paths, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
        #expect(doubled.isEmpty, "created more than once: \(doubled)")
        let files = items.filter { $0["mimeType"]?.stringValue != "application/vnd.google-apps.folder" }
        #expect(files.count == expected.count)
        for (relative, md5) in expected {
            let matches = files.filter { $0["path"]?.stringValue?.hasSuffix("/" + relative) == true }
            #expect(matches.count == 1 && matches.first?["md5Checksum"]?.stringValue == md5, "\(relative)")
        }
        // Folders: Backup, 2025, 3 years, 12 months (the tree's own folder may sit between them).
        #expect(items.count - files.count >= 2 + 3 + 12)
    }

    @Test("copies go Drive → Dropbox, Dropbox → Drive, and Drive → Drive inside the account (Drive copies it itself), bytes equal")
    func copiesBothWays() async throws {
        try await InProcessFleet.run("gdrive_copies") { fleet in try await Self.copiesBothWays(fleet) }
    }

    static func copiesBothWays(_ fleet: InProcessFleet) async throws {
        let server = fleet.server, db = fleet.db
        try await Self.addAccount("drive", fleet: fleet)
        try await fleet.addDropbox("box")
        let dir = try temporaryFolder("gdrivecopies")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var sizes = ["a.jpg": 3000, "sub/b.jpg": 6 * 1024 * 1024 + 5, "sub/deeper/c.txt": 0]
        for (name, size) in sizes {
            try FileManager.default.createDirectory(atPath: SafePath.directory(of: "\(dir)/src/\(name)"), withIntermediateDirectories: true)
            try DropboxAccounts.randomFile("\(dir)/src/\(name)", size: size)
        }
        let worker = try fleet.worker("copies", concurrency: 8, chunkMiB: 1)
        // `ferry enqueue upload DIR/ --recursive` walks the tree through FerryClient; copies are one job each.
        _ = try await fleet.client.enqueueTree(
            dir + "/src/", to: "gdrive:drive:/Photos/", template: JobRequest(kind: .upload, source: "", to: "", batch: "up"))
        try await fleet.waitForBatch("up")
        for (source, destination, batch) in [
            ("gdrive:drive:/Photos/", "dropbox:box:/FromDrive/", "to-dropbox"), ("dropbox:box:/FromDrive/", "gdrive:drive:/Back/", "to-drive"),
            ("gdrive:drive:/Photos/", "gdrive:drive:/Twin/", "inside"),
        ] {
            try await fleet.enqueue(.copy, source, to: destination, batch: batch)
            try await fleet.waitForBatch(batch)
        }
        try await fleet.stop([worker])

        sizes["sub/deeper/c.txt"] = nil // An empty file is copied too, but compared by size below.
        let items = try await Self.items(server, "drive")
        for (name, _) in sizes {
            let local = try Self.md5("\(dir)/src/\(name)")
            let boxFile = server.storedFile(account: "box", path: "/FromDrive/" + name)
            #expect(try Self.md5(boxFile) == local, "Dropbox holds \(name)")
            for folder in ["/Back/", "/Twin/"] {
                let matches = items.filter { $0["path"]?.stringValue?.hasSuffix(folder + name) == true }
                #expect(matches.count == 1 && matches.first?["md5Checksum"]?.stringValue == local, "Drive holds \(folder)\(name)")
            }
        }
        let inside = try await db.query(
            "SELECT count(*) FROM ferry.jobs WHERE batch = 'inside' AND result->>'server_side' = 'true'", []).rows.first?.decode(Int.self, at: 0)
        #expect(inside == 3, "Drive copied every file of the folder itself")
    }

    @Test(
        "kill -9 mid-upload: another worker resumes the same resumable session from its recorded offset and sends no chunk twice",
        .tags(.process))
    func killedUploadResumesSession() async throws {
        let server = try await DevServerProcess(["--upload-bytes-per-second", "2097152"])
        let db = try await TestDatabase.make("gdrive_kill")
        try await Self.addAccount("drive", server: server, db: db)
        let dir = try temporaryFolder("gdrivekill")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let mib = 1024 * 1024
        let size = 14 * mib + 99
        try DropboxAccounts.randomFile(dir + "/big.bin", size: size)
        let enqueued = try await FerryProcess.run(["enqueue", "upload", dir + "/big.bin", "--to", "gdrive:drive:/Video/big.bin"], databaseURL: db.url)
        #expect(enqueued.status == 0, "\(enqueued.stderr)")

        let victim = try TestWorker.transfers(db, name: "victim", ["--chunk-size", "1"])
        // Killed from a process of its own: a late kill from a starved test task would find the upload done.
        try await WorkerFixtures.kill(victim, in: db, when: "SELECT count(*) FROM ferry.jobs WHERE bytes_done >= \(4 * mib)")
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 0, "killed mid-upload")

        let survivor = try TestWorker.transfers(db, name: "survivor", ["--chunk-size", "1"])
        try await eventually(timeout: .seconds(300), "the upload to finish") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 1
        }
        survivor.signal(SIGTERM)
        _ = try await survivor.waitForExit()

        let items = try await Self.items(server, "drive").filter { $0["path"]?.stringValue == "/Video/big.bin" }
        let local = try Self.md5(dir + "/big.bin")
        #expect(items.count == 1 && items.first?["md5Checksum"]?.stringValue == local)
        let stats = try await server.request("GET", "/__dev/gdrive/stats")
        #expect(stats["sessions_started"]?.intValue == 1, "resumed, not restarted: \(stats)")
        let received = stats["bytes_received_per_session"]?.objectValue?.values.compactMap(\.intValue).reduce(0, +) ?? 0
        #expect(received - Int64(size) <= Int64(2 * mib), "re-sent at most the chunk in flight (\(received - Int64(size)) bytes more)")
        #expect(survivor.log.contains("resuming the recorded upload session"))
        #expect(try await count(db, "SELECT attempt FROM ferry.jobs") == 2)
    }

    @Test(
        "copies go Drive → S3 and S3 → Drive through the capabilities: objects and files equal their sources",
        .tags(.process))
    func copiesWithS3() async throws {
        let setup = try await S3TransferTests.setUp("gdrive_s3")
        defer { try? FileManager.default.removeItem(atPath: setup.dir) }
        let server = try await DevServerProcess()
        try await Self.addAccount("drive", server: server, db: setup.db)
        let names = ["a.jpg": 4000, "deep/b.bin": 7 * 1024 * 1024 + 3]
        for (name, size) in names {
            try FileManager.default.createDirectory(atPath: SafePath.directory(of: "\(setup.dir)/src/\(name)"), withIntermediateDirectories: true)
            try DropboxAccounts.randomFile("\(setup.dir)/src/\(name)", size: size)
        }
        let worker = try S3TransferTests.worker(setup, name: "gdrive-s3", ["--concurrency", "8", "--chunk-size", "5"])
        for (kind, arguments, batch) in [
            ("upload", [setup.dir + "/src/", "--recursive", "--to", "gdrive:drive:/Src/"], "up"),
            ("copy", ["gdrive:drive:/Src/", "--to", "s3:s3:\(setup.bucket)/from-drive/"], "to-s3"),
            ("copy", ["s3:s3:\(setup.bucket)/from-drive/", "--to", "gdrive:drive:/FromS3/"], "to-drive"),
        ] {
            let result = try await FerryProcess.run(["enqueue", kind] + arguments + ["--batch", batch], databaseURL: setup.db.url)
            #expect(result.status == 0, "\(result.stderr)")
            try await Self.waitForBatch(setup.db, batch)
            #expect(try await count(setup.db, "SELECT count(*) FROM ferry.jobs WHERE batch = $1 AND state <> 'succeeded'", [batch]) == 0, "\(batch)")
        }
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()
        let items = try await Self.items(server, "drive")
        for (name, _) in names {
            let local = try Data(contentsOf: URL(fileURLWithPath: "\(setup.dir)/src/\(name)"))
            #expect(try await S3TransferTests.objectSHA256(setup.client, setup.bucket, "from-drive/" + name) == CopyTransferTests.sha256(local), "S3 holds \(name)")
            let matches = items.filter { $0["path"]?.stringValue?.hasSuffix("/FromS3/" + name) == true }
            #expect(matches.count == 1 && matches.first?["md5Checksum"]?.stringValue == (try? Self.md5("\(setup.dir)/src/\(name)")), "Drive holds \(name)")
        }
    }

    /// An access token of `account` from the dev server's token endpoint (as any client of the account would get one).
    static func accessToken(_ server: any DevServerControl, _ account: String) async throws -> String {
        let refresh = try #require(
            try await server.request("POST", "/__dev/gdrive/accounts", json: .object(["account": .string(account)]))["refresh_token"]?.stringValue)
        let form = "grant_type=refresh_token&client_id=\(DevServerProcess.appKey)&client_secret=\(server.appSecret)&refresh_token=\(refresh)"
        let reply = try await server.request(
            "POST", "/token", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(form.utf8))
        return try #require(reply["access_token"]?.stringValue)
    }

    @Test("a folder deleted in Drive after Ferry recorded its id is made again: the next upload into it succeeds")
    func deletedFolderIsMadeAgain() async throws {
        try await InProcessFleet.run("gdrive_deleted_folder") { fleet in try await Self.deletedFolderIsMadeAgain(fleet) }
    }

    static func deletedFolderIsMadeAgain(_ fleet: InProcessFleet) async throws {
        let server = fleet.server, db = fleet.db
        try await Self.addAccount("drive", fleet: fleet)
        let dir = try temporaryFolder("gdrivedeleted")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try DropboxAccounts.randomFile(dir + "/a.jpg", size: 2000)
        try DropboxAccounts.randomFile(dir + "/b.jpg", size: 3000)
        let worker = try fleet.worker("deleted", concurrency: 2)
        for (name, batch) in [("a.jpg", "first"), ("b.jpg", "second")] {
            if batch == "second" {
                // A person deletes the folder in Drive; Ferry's ledger still has its id.
                let folder = try #require(try await Self.items(server, "drive").first { $0["path"]?.stringValue == "/Backup" })
                let token = try await Self.accessToken(server, "drive")
                let (_, status) = try await server.raw(
                    "DELETE", "/drive/v3/files/" + (folder["id"]?.stringValue ?? ""), headers: ["Authorization": "Bearer " + token])
                #expect(status == 204)
            }
            try await fleet.enqueue(.upload, dir + "/" + name, to: "gdrive:drive:/Backup/", batch: batch)
            try await fleet.waitForBatch(batch)
        }
        try await fleet.stop([worker])
        let second = try await db.query("SELECT state, attempt FROM ferry.jobs WHERE batch = 'second'").rows
        #expect(try second.first?.decode(String.self, at: 0) == "succeeded")
        #expect(try second.first?.decode(Int.self, at: 1) == 2, "the first attempt met the deleted folder")
        let items = try await Self.items(server, "drive")
        #expect(items.contains { $0["path"]?.stringValue == "/Backup/b.jpg" })
    }
}
