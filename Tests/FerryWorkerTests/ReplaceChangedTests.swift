import Crypto
import FerryClient
import FerryCore
import FerryS3
import FerryTestSupport
import Foundation
import NIOCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Backups that hold (issue 32): a tree uploaded again replaces its changed files, as rclone's `copy` does, on
/// Dropbox, S3 (moto), Google Drive (dev server) and a local folder; `--immutable` and `--ignore-existing` keep
/// the stricter choices for uploads too. Workers, producer and dev server in the test's process (`InProcessFleet`),
/// moto and PostgreSQL outside; what `ferry enqueue` refuses runs the command.
@Suite("changed files replaced by default", .tags(.postgres), .serialized)
struct ReplaceChangedTests {
    /// One run's destinations: each takes the tree with `upload DIR --recursive --to DEST`.
    struct Destinations {
        let server: any DevServerControl
        let setup: S3TransferTests.Setup
        let local: String

        var all: [String] { ["dropbox:box:/Backup/", "s3:s3:\(setup.bucket)/backup/", "gdrive:drive:/Backup/", local] }

        /// The MD5 of what is at `relative` below each destination (nil where there is none), by destination; a
        /// Drive file's as Drive states it (`md5Checksum`).
        func stored(_ relative: String) async throws -> [String: String?] {
            let drive = try await ReplaceChangedTests.driveItems(server, "drive").first { $0["path"]?.stringValue == "/Backup/" + relative }
            var object: String?
            if let download = try? await setup.client.getObject(bucket: setup.bucket, key: "backup/" + relative) {
                var data = Data()
                for try await piece in download.body { data.append(contentsOf: piece.readableBytesView) }
                object = ReplaceChangedTests.md5(data)
            }
            return [
                all[0]: FileManager.default.contents(atPath: server.storedFile(account: "box", path: "/Backup/" + relative)).map(ReplaceChangedTests.md5),
                all[1]: object,
                all[2]: drive?["md5Checksum"]?.stringValue,
                all[3]: FileManager.default.contents(atPath: local + relative).map(ReplaceChangedTests.md5),
            ]
        }

        /// Names stored twice or renamed aside (`x (1).jpg`, `x (conflicted copy).jpg`) at any destination.
        func duplicates() async throws -> [String] {
            let drive = try await ReplaceChangedTests.driveItems(server, "drive").compactMap { $0["path"]?.stringValue }
            var found = Dictionary(grouping: drive, by: { $0 }).filter { $0.value.count > 1 }.keys.map { "gdrive \($0)" }
            let dropbox = server.storedFile(account: "box", path: "/Backup")
            for path in (try? FileManager.default.subpathsOfDirectory(atPath: dropbox)) ?? [] where path.contains(" (") {
                found.append("dropbox " + path)
            }
            for path in (try? FileManager.default.subpathsOfDirectory(atPath: local)) ?? [] where path.contains(" (") || path.hasPrefix(".") {
                found.append("local " + path)
            }
            return found
        }
    }

    static func write(_ root: String, _ relative: String, _ data: Data, modified: TimeInterval) throws {
        let path = root + "/" + relative
        try FileManager.default.createDirectory(atPath: SafePath.directory(of: path), withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: modified)], ofItemAtPath: path)
    }

    static func md5(_ data: Data) -> String {
        Insecure.MD5.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    static func bytes(_ count: Int, seed: UInt8) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &* 7 &+ $0 >> 9) })
    }

    /// `upload DIR --recursive`'s options: what is there already compared (unless `--no-if-changed`), and `existing`
    /// as `--immutable` or `--ignore-existing` set it.
    static func treeOptions(existing: String? = nil) -> [String: OptionValue] {
        var options: [String: OptionValue] = ["if_changed": .json(.bool(true))]
        if let existing { options["existing"] = .commandLine(existing) }
        return options
    }

    /// Enqueues the tree to every destination as batches `NAME-0` … `NAME-3` (`upload TREE --recursive --to DEST
    /// --max-attempts 2`, walked as the command walks it), waits for them, and answers each finished job's state,
    /// `skipped` and error by destination.
    static func run(
        _ name: String, tree: String, to destinations: Destinations, fleet: InProcessFleet, existing: String? = nil
    ) async throws -> [String: (state: String, skipped: String?, error: String?)] {
        let db = destinations.setup.db
        for (index, destination) in destinations.all.enumerated() {
            let template = JobRequest(
                kind: .upload, source: "", to: "", batch: "\(name)-\(index)", maxAttempts: 2, options: Self.treeOptions(existing: existing))
            _ = try await fleet.client.enqueueTree(tree, to: destination, template: template)
        }
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "run \(name)") {
            try await count(
                db, "SELECT count(*) FROM ferry.jobs WHERE batch LIKE $1 AND state NOT IN ('succeeded', 'failed', 'cancelled')", [name + "-%"]) == 0
        }
        var out = [String: (String, String?, String?)]()
        for row in try await db.query(
            "SELECT destination, state, result->>'skipped', last_error FROM ferry.jobs WHERE batch LIKE $1", [name + "-%"]
        ).rows {
            out[try row.decode(String.self, at: 0)] = (try row.decode(String.self, at: 1), try row.decode(String?.self, at: 2), try row.decode(String?.self, at: 3))
        }
        return out
    }

    @Test("a tree uploaded three times (files added, changed, changed at the same size, unchanged) to Dropbox, S3, Drive and a local folder: each equals the source, no error, no second name; --immutable fails a changed file, --ignore-existing leaves it, the default replaces it", .tags(.s3))
    func treeRunsReplaceChangedFiles() async throws {
        try await InProcessFleet.run("replace_tree") { fleet in try await Self.treeRunsReplaceChangedFiles(fleet) }
    }

    static func treeRunsReplaceChangedFiles(_ fleet: InProcessFleet) async throws {
        let setup = try await fleet.s3("replace_tree")
        defer { try? FileManager.default.removeItem(atPath: setup.dir) }
        let server = fleet.server
        try await fleet.addDropbox("box")
        try await Self.addDrive("drive", fleet: fleet)
        let tree = setup.dir + "/tree"
        let destinations = Destinations(server: server, setup: setup, local: setup.dir + "/local/")
        // big.bin is over one chunk: Dropbox commits it from an upload session, Drive through a resumable session.
        var source = [
            "a.jpg": Self.bytes(3_000, seed: 1), "sub/b.jpg": Self.bytes(5_000, seed: 2), "sub/deeper/c.txt": Self.bytes(700, seed: 3),
            "big.bin": Self.bytes(6 * 1024 * 1024 + 3, seed: 10),
        ]
        for (relative, data) in source { try Self.write(tree, relative, data, modified: 1_700_000_000) }
        let worker = try fleet.worker("replace", concurrency: 8, chunkMiB: 5)

        func check(_ run: String, changed: Set<String>, unchanged: Set<String>) async throws {
            let jobs = try await Self.run(run, tree: tree, to: destinations, fleet: fleet)
            #expect(jobs.count == source.count * destinations.all.count, "\(run): \(jobs)")
            for (destination, job) in jobs {
                #expect(job.state == "succeeded", "\(run) \(destination): \(job.error ?? "")")
                let relative = source.keys.first { destination.hasSuffix("/" + $0) } ?? "?"
                if unchanged.contains(relative) { #expect(job.skipped == "unchanged", "\(run) \(destination)") }
                if changed.contains(relative) { #expect(job.skipped == nil, "\(run) \(destination): sent again") }
            }
            for (relative, data) in source {
                for (destination, stored) in try await destinations.stored(relative) {
                    #expect(stored == Self.md5(data), "\(run): \(destination)\(relative) holds the source's bytes")
                }
            }
            let duplicates = try await destinations.duplicates()
            #expect(duplicates.isEmpty, "\(run): \(duplicates)")
        }
        try await check("first", changed: Set(source.keys), unchanged: [])

        // Second run: one file added, one changed in size, one changed at the same size (new bytes, new time).
        source["sub/new.jpg"] = Self.bytes(4_100, seed: 4)
        source["a.jpg"] = Self.bytes(3_333, seed: 5)
        source["sub/b.jpg"] = Self.bytes(5_000, seed: 6)
        source["big.bin"] = Self.bytes(6 * 1024 * 1024 + 3, seed: 11)
        for relative in ["sub/new.jpg", "a.jpg", "sub/b.jpg", "big.bin"] { try Self.write(tree, relative, source[relative]!, modified: 1_700_000_500) }
        try await check("second", changed: ["sub/new.jpg", "a.jpg", "sub/b.jpg", "big.bin"], unchanged: ["sub/deeper/c.txt"])

        // Third run: the one left alone so far changes at its size; another file arrives.
        source["sub/deeper/c.txt"] = Self.bytes(700, seed: 7)
        source["d.bin"] = Self.bytes(1, seed: 8)
        for relative in ["sub/deeper/c.txt", "d.bin"] { try Self.write(tree, relative, source[relative]!, modified: 1_700_000_900) }
        try await check("third", changed: ["sub/deeper/c.txt", "d.bin"], unchanged: ["a.jpg", "sub/b.jpg", "sub/new.jpg", "big.bin"])

        // --immutable: the changed file fails at every destination (naming the fix) and stays as it was there.
        let stored = Self.md5(source["a.jpg"]!)
        source["a.jpg"] = Self.bytes(3_333, seed: 9)
        try Self.write(tree, "a.jpg", source["a.jpg"]!, modified: 1_700_001_000)
        let immutable = try await Self.run("immutable", tree: tree, to: destinations, fleet: fleet, existing: "immutable")
        for (destination, job) in immutable {
            if destination.hasSuffix("/a.jpg") {
                #expect(job.state == "failed", "\(destination)")
                #expect(job.error?.hasPrefix("destination_exists") == true && job.error?.contains("existing=replace") == true, "\(job.error ?? "")")
            } else {
                #expect(job.state == "succeeded" && job.skipped == "unchanged", "\(destination): \(job.error ?? "")")
            }
        }
        for (destination, bytes) in try await destinations.stored("a.jpg") { #expect(bytes == stored, "\(destination) kept") }

        // --ignore-existing: every file there is left alone, whatever its content.
        let ignored = try await Self.run("ignore", tree: tree, to: destinations, fleet: fleet, existing: "ignore")
        for (destination, job) in ignored { #expect(job.state == "succeeded" && job.skipped == "exists", "\(destination): \(job)") }
        for (destination, bytes) in try await destinations.stored("a.jpg") { #expect(bytes == stored, "\(destination) left alone") }

        // The default again: replaced.
        try await check("replace", changed: ["a.jpg"], unchanged: Set(source.keys).subtracting(["a.jpg"]))
        try await fleet.stop([worker])
        #expect(try await fleet.projectionClean(), "ferry projection verify would pass")
    }

    @Test("a copy of a changed file replaces it: a Dropbox folder to S3, that prefix on to Drive and back to Dropbox, copied again after one file changed at its size", .tags(.s3))
    func copiesReplaceChangedFiles() async throws {
        try await InProcessFleet.run("replace_copy") { fleet in try await Self.copiesReplaceChangedFiles(fleet) }
    }

    static func copiesReplaceChangedFiles(_ fleet: InProcessFleet) async throws {
        let setup = try await fleet.s3("replace_copy")
        defer { try? FileManager.default.removeItem(atPath: setup.dir) }
        let server = fleet.server
        let refresh = try await fleet.addDropbox("box")
        try await Self.addDrive("drive", fleet: fleet)
        var source = ["a.jpg": Self.bytes(3_000, seed: 1), "sub/b.jpg": Self.bytes(4_000, seed: 2)]
        // Modification times apart: a copy without a common digest compares size and time (as rclone does).
        for (relative, data) in source {
            try await DropboxFetchTests.upload(server, refreshToken: refresh, path: "/Src/" + relative, data: data, clientModified: "2024-01-01T00:00:00Z")
        }
        _ = try fleet.worker("copies", concurrency: 8)
        func copy(_ from: String, _ to: String, batch: String) async throws {
            try await fleet.enqueue(.copy, from, to: to, batch: batch, options: Self.treeOptions(), maxAttempts: 2)
            try await Self.settled(setup.db, batch)
            let failed = try await setup.db.query("SELECT destination, last_error FROM ferry.jobs WHERE batch = $1 AND state <> 'succeeded'", [batch]).rows
            let problems = try failed.map { "\(try $0.decode(String.self, at: 0)): \(try $0.decode(String?.self, at: 1) ?? "")" }
            #expect(problems.isEmpty, "\(batch): \(problems)")
        }
        func round(_ name: String) async throws {
            try await copy("dropbox:box:/Src/", "s3:s3:\(setup.bucket)/copy/", batch: name + "-s3")
            try await copy("s3:s3:\(setup.bucket)/copy/", "gdrive:drive:/Copy/", batch: name + "-drive")
            try await copy("s3:s3:\(setup.bucket)/copy/", "dropbox:box:/Back/", batch: name + "-dropbox")
            let drive = try await Self.driveItems(server, "drive")
            for (relative, data) in source {
                #expect(try await S3TransferTests.objectSHA256(setup.client, setup.bucket, "copy/" + relative) == CopyTransferTests.sha256(data), "\(name) S3 \(relative)")
                let files = drive.filter { $0["path"]?.stringValue == "/Copy/" + relative }
                #expect(files.count == 1 && files.first?["md5Checksum"]?.stringValue == Self.md5(data), "\(name) Drive \(relative): \(files)")
                #expect(FileManager.default.contents(atPath: server.storedFile(account: "box", path: "/Back/" + relative)) == data, "\(name) Dropbox \(relative)")
            }
            let renamed = (try? FileManager.default.subpathsOfDirectory(atPath: server.storedFile(account: "box", path: "/Back")))?.filter { $0.contains(" (") }
            #expect(renamed?.isEmpty == true, "\(renamed ?? [])")
        }
        try await round("first")
        source["sub/b.jpg"] = Self.bytes(4_000, seed: 3)
        try await DropboxFetchTests.upload(
            server, refreshToken: refresh, path: "/Src/sub/b.jpg", data: source["sub/b.jpg"]!, clientModified: "2024-06-01T00:00:00Z")
        try await round("second")
        // Only the changed file was copied again, each time as a write over the one there.
        let written = try await count(
            setup.db, "SELECT count(*) FROM ferry.jobs WHERE batch LIKE 'second-%' AND source NOT LIKE '%/' AND state = 'succeeded' AND result->>'skipped' IS NULL")
        #expect(written == 3, "b.jpg to S3, to Drive, to Dropbox")

        // a.jpg changes again: --immutable fails its copy (the object stays), --ignore-existing leaves it (and looks
        // for that even without if_changed).
        let before = try await S3TransferTests.objectSHA256(setup.client, setup.bucket, "copy/a.jpg")
        try await DropboxFetchTests.upload(
            server, refreshToken: refresh, path: "/Src/a.jpg", data: Self.bytes(3_000, seed: 4), clientModified: "2024-09-01T00:00:00Z")
        // --immutable (compared first, as copies are), then --ignore-existing --no-if-changed.
        let policies: [(String, [String: OptionValue])] = [
            ("immutable", Self.treeOptions(existing: "immutable")), ("ignore", ["existing": .commandLine("ignore")]),
        ]
        for (batch, options) in policies {
            try await fleet.enqueue(.copy, "dropbox:box:/Src/", to: "s3:s3:\(setup.bucket)/copy/", batch: batch, options: options)
            try await Self.settled(setup.db, batch)
        }
        let refused = try await setup.db.query(
            "SELECT state, last_error FROM ferry.jobs WHERE batch = 'immutable' AND destination LIKE '%/copy/a.jpg'").rows[0]
        #expect(try refused.decode(String.self, at: 0) == "failed" && (try refused.decode(String?.self, at: 1) ?? "").hasPrefix("destination_exists"))
        let left = try await count(
            setup.db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'ignore' AND source NOT LIKE '%/' AND state = 'succeeded' AND result->>'skipped' = 'exists'")
        #expect(left == 2, "both files left alone")
        #expect(try await S3TransferTests.objectSHA256(setup.client, setup.bucket, "copy/a.jpg") == before)
    }

    @Test("folder fetches replace a changed local file by default: Dropbox, S3 and Drive folders fetched again after one file changed at its size", .tags(.s3))
    func folderFetchesReplaceChangedFiles() async throws {
        try await InProcessFleet.run("replace_fetch") { fleet in try await Self.folderFetchesReplaceChangedFiles(fleet) }
    }

    static func folderFetchesReplaceChangedFiles(_ fleet: InProcessFleet) async throws {
        let setup = try await fleet.s3("replace_fetch")
        defer { try? FileManager.default.removeItem(atPath: setup.dir) }
        try await fleet.addDropbox("box")
        try await Self.addDrive("drive", fleet: fleet)
        let tree = setup.dir + "/tree"
        var source = ["a.jpg": Self.bytes(3_000, seed: 1), "sub/b.jpg": Self.bytes(5_000, seed: 2)]
        for (relative, data) in source { try Self.write(tree, relative, data, modified: 1_700_000_000) }
        let remotes = ["dropbox": "dropbox:box:/F/", "s3": "s3:s3:\(setup.bucket)/f/", "drive": "gdrive:drive:/F/"]
        _ = try fleet.worker("fetches", concurrency: 8)
        func settled(_ batch: String) async throws {
            try await Self.settled(setup.db, batch)
            let failed = try await setup.db.query("SELECT source, last_error FROM ferry.jobs WHERE batch = $1 AND state <> 'succeeded'", [batch]).rows
            let problems = try failed.map { "\(try $0.decode(String.self, at: 0)): \(try $0.decode(String?.self, at: 1) ?? "")" }
            #expect(problems.isEmpty, "\(batch): \(problems)")
        }
        func round(_ name: String) async throws {
            for (label, remote) in remotes {
                // upload TREE --recursive --to REMOTE, then fetch REMOTE --recursive --to OUT/.
                let up = JobRequest(kind: .upload, source: "", to: "", batch: "\(name)-up-\(label)", options: Self.treeOptions())
                _ = try await fleet.client.enqueueTree(tree, to: remote, template: up)
                try await settled("\(name)-up-\(label)")
                try await fleet.enqueue(
                    .fetch, remote, to: setup.dir + "/out-\(label)/", batch: "\(name)-down-\(label)", options: ["recursive": .json(.bool(true))])
                try await settled("\(name)-down-\(label)")
                let out = setup.dir + "/out-\(label)"
                let files = try FileManager.default.subpathsOfDirectory(atPath: out).filter { path in
                    var folder: ObjCBool = false
                    return FileManager.default.fileExists(atPath: out + "/" + path, isDirectory: &folder) && !folder.boolValue
                }
                for (relative, data) in source {
                    let found = files.filter { $0 == relative || $0.hasSuffix("/" + relative) }
                    #expect(found.count == 1, "\(name) \(label): \(files)")
                    #expect(found.first.flatMap { FileManager.default.contents(atPath: out + "/" + $0) } == data, "\(name) \(label) \(relative)")
                }
                #expect(!files.contains { ($0 as NSString).lastPathComponent.hasPrefix(".") }, "no partial file left: \(files)")
            }
        }
        try await round("first")
        source["sub/b.jpg"] = Self.bytes(5_000, seed: 3)
        try Self.write(tree, "sub/b.jpg", source["sub/b.jpg"]!, modified: 1_700_000_600)
        try await round("second")
    }

    @Test("Dropbox: a file changed at the destination between the look and the commit is not overwritten (update on the seen revision conflicts), never renamed aside; mode=add keeps add")
    func dropboxLostRace() async throws {
        try await InProcessFleet.run("replace_race") { fleet in try await Self.dropboxLostRace(fleet) }
    }

    static func dropboxLostRace(_ fleet: InProcessFleet) async throws {
        let (server, db) = (fleet.server, fleet.db)
        let refresh = try await fleet.addDropbox("box")
        let dir = try temporaryFolder("replace-race")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await DropboxFetchTests.upload(server, refreshToken: refresh, path: "/Race/big.bin", data: Self.bytes(1_000, seed: 1))
        let file = dir + "/big.bin"
        try Self.write(dir, "big.bin", Self.bytes(12 * 1024 * 1024, seed: 2), modified: 1_700_000_000)
        // Slow enough that the other writer comes in while the chunks go up (after the look, before the commit).
        let worker = try fleet.worker("race", chunkMiB: 4) { $0.bandwidthLimit = 1 << 20 }
        try await fleet.upload([file], to: "dropbox:box:/Race/", batch: "race", options: Self.treeOptions())
        try await eventually(timeout: .seconds(120), "the upload session to start") {
            try await count(
                db, "SELECT count(*) FROM ferry.events e JOIN ferry.jobs j USING (job_id) WHERE j.batch = 'race' AND e.type = 'progress' AND e.data->'session' ? 'upload_session_id'") > 0
        }
        let other = Self.bytes(2_000, seed: 3)
        try await DropboxFetchTests.upload(server, refreshToken: refresh, path: "/Race/big.bin", data: other)
        try await Self.settled(db, "race")
        let row = try await db.query("SELECT state, last_error, attempt FROM ferry.jobs WHERE batch = 'race'").rows[0]
        let error = try row.decode(String?.self, at: 1) ?? ""
        #expect(try row.decode(String.self, at: 0) == "failed" && error.hasPrefix("destination_changed"), "\(error)")
        #expect(FileManager.default.contents(atPath: server.storedFile(account: "box", path: "/Race/big.bin")) == other, "the other writer's version stays")
        let names = try FileManager.default.contentsOfDirectory(atPath: server.storedFile(account: "box", path: "/Race"))
        #expect(names == ["big.bin"], "no conflicted copy: \(names)")

        // Asked for add, a changed file gets add: the job fails as before, naming mode overwrite.
        try await fleet.upload([file], to: "dropbox:box:/Race/", batch: "add", options: Self.treeOptions().merging(["mode": .commandLine("add")]) { $1 })
        try await Self.settled(db, "add")
        let addError = try await db.query("SELECT last_error FROM ferry.jobs WHERE batch = 'add'").rows[0].decode(String?.self, at: 0) ?? ""
        #expect(addError.hasPrefix("destination_exists") && addError.contains("mode overwrite"), "\(addError)")
        #expect(FileManager.default.contents(atPath: server.storedFile(account: "box", path: "/Race/big.bin")) == other)
        try await fleet.stop([worker])
    }

    @Test(
        "attacker's inputs: a bad existing value on an upload or a copy, or both flags at once, is refused naming the fix, and nothing is enqueued",
        .tags(.process))
    func hostileExistingOption() async throws {
        let db = try await TestDatabase.make("replace_hostile")
        let dir = try temporaryFolder("replace-hostile")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.write(dir, "a.jpg", Self.bytes(10, seed: 1), modified: 1_700_000_000)
        try await db.query("INSERT INTO ferry.accounts (name, provider) VALUES ('box', 'dropbox'), ('s3', 's3')")
        for arguments in [
            ["upload", dir + "/a.jpg", "--to", "dropbox:box:/x/", "--option", "existing=sometimes"],
            ["upload", dir, "--recursive", "--to", dir + "-copy/", "--option", "existing="],
            ["copy", "s3:s3:bucket/a.jpg", "--to", "dropbox:box:/x/", "--option", "existing=REPLACE"],
        ] {
            let result = try await FerryProcess.run(["enqueue"] + arguments, databaseURL: db.url)
            #expect(result.status == 65 && result.stderr.contains("existing") && result.stderr.contains("immutable"), "\(arguments): \(result.stderr)")
        }
        let both = try await FerryProcess.run(
            ["enqueue", "upload", dir, "--recursive", "--to", "dropbox:box:/x/", "--immutable", "--ignore-existing"], databaseURL: db.url)
        #expect(both.status == 64 && both.stderr.contains("contradict"), "\(both.stderr)")
        let twice = try await FerryProcess.run(
            ["enqueue", "upload", dir + "/a.jpg", "--to", "dropbox:box:/x/", "--immutable", "--option", "existing=replace"], databaseURL: db.url)
        #expect(twice.status == 64 && twice.stderr.contains("given twice"), "\(twice.stderr)")
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs") == 0)
        // A schedule takes the policy into its template (each tick's tree carries it to its files); a bad one, nothing.
        let schedule = try await FerryProcess.run(
            ["schedule", "add", "nightly", "--cron", "0 2 * * *", "--", "upload", dir, "--recursive", "--to", "dropbox:box:/x/", "--immutable"],
            databaseURL: db.url)
        #expect(schedule.status == 0, "\(schedule.stderr)")
        let badSchedule = try await FerryProcess.run(
            ["schedule", "add", "bad", "--cron", "0 2 * * *", "--", "upload", dir, "--recursive", "--to", "dropbox:box:/x/", "--option", "existing=never"],
            databaseURL: db.url)
        #expect(badSchedule.status == 65 && badSchedule.stderr.contains("existing"), "\(badSchedule.stderr)")
        let templates = try await db.query("SELECT name, template::text FROM ferry.schedules").rows
        let template = try templates.first?.decode(String.self, at: 1) ?? ""
        #expect(templates.count == 1 && template.contains("\"existing\": \"immutable\""), "\(template)")
        // From SQL, the database checks the option as enqueue does (check_provider_options: invalid_parameter_value).
        await expectSQLState("22023") {
            _ = try await db.query("SELECT ferry.enqueue('upload', $1, 'dropbox:box:/x/', '{\"options\": {\"existing\": \"sometimes\"}}')", [dir + "/a.jpg"])
        }
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs") == 0)
    }
}
