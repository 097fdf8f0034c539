import FerryArchive
import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// `ferry archive restore` does not trust the file (issue 20): the real binary, files edited the way an attacker
/// with write access to the archive directory would (edit, gzip again, recompute the manifest).
@Suite("ferry archive restore refuses what it cannot trust", .tags(.postgres, .process))
struct ArchiveRestoreSafetyTests {
    /// An archive of `count` finished jobs of `db` (plus one cancelled job): the file, its manifest next to it.
    static func archive(_ db: TestDatabase, count: Int = 5, _ extra: [String] = []) async throws -> (file: String, directory: String) {
        _ = try await ArchiveCommandTests.finishedJobs(db, count: count)
        let store = db.store()
        let cancelled = Self.spec(queue: "nobody")
        _ = try await store.enqueue([cancelled])
        _ = try await store.cancel(.job(cancelled.jobID), requestedBy: "test")
        store.client.close()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-arch-\(UUID().uuidString)").path
        let run = try await FerryProcess.run(["archive", "--finished-before", "0s", "--to", directory] + extra, databaseURL: db.url)
        try #require(run.status == 0, "\(run.stderr)")
        let files = ArchiveCommandTests.files(in: directory, suffix: ".jsonl.gz")
        try #require(files.count == 1)
        return (files[0], directory)
    }

    static func spec(queue: String) -> JobSpec {
        JobSpec(
            jobID: UUIDv7.make(), kind: .fetch, source: "https://example.com/\(UUID().uuidString).jpg",
            destination: "/srv/in/", account: nil, queue: queue, batch: nil, priority: 0, maxAttempts: 3,
            runAt: nil, idempotencyKey: nil, metadata: nil, bytesTotal: 1000, details: [:])
    }

    /// Rewrites `file` with each job line passed through `edit` (gzip again, same header), and writes a manifest
    /// with the new file's true SHA-256 and size, then `manifest` applied to it.
    static func tamper(
        _ file: String, edit: (inout [String: JSONValue]) -> Void, manifest: (inout ArchiveManifest) -> Void = { _ in }
    ) throws {
        let header = try ArchiveFileReader.header(of: file)
        var lines = [String]()
        _ = try ArchiveFileReader.forEachJob(in: file) { lines.append($0) }
        var described = try #require(try ArchiveManifest.read(for: file))
        try FileManager.default.removeItem(atPath: file)
        let writer = try ArchiveFileWriter(path: file, header: header)
        for line in lines {
            guard case .object(var fields) = try JSONValue.parse(line) else { throw TestSupportError("not an object") }
            edit(&fields)
            try writer.write(line: Array(JSONValue.object(fields).jsonText.utf8))
        }
        let facts = try writer.finish()
        try FileManager.default.moveItem(atPath: file + ArchiveFileWriter.partialSuffix, toPath: file)
        described.sha256 = facts.sha256
        described.bytes = facts.bytes
        manifest(&described)
        try described.write(for: file)
    }

    /// The job of a line, edited in place.
    static func editJob(_ fields: inout [String: JSONValue], _ body: (inout [String: JSONValue]) -> Void) {
        guard case .object(var job)? = fields["job"] else { return }
        body(&job)
        fields["job"] = .object(job)
    }

    static func isCancelled(_ fields: [String: JSONValue]) -> Bool {
        if case .object(let job)? = fields["job"], job["state"] == .string("cancelled") { return true }
        return false
    }

    /// Nothing of the archive came back: no job, no event, and the archive's record is as it was.
    static func expectNothingWritten(_ db: TestDatabase, archived: Int, records: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs") == 0, sourceLocation: sourceLocation)
        #expect(try await count(db, "SELECT count(*) FROM ferry.events") == 0, sourceLocation: sourceLocation)
        #expect(try await count(db, "SELECT count(*) FROM ferry.archived_jobs") == archived, sourceLocation: sourceLocation)
        #expect(try await count(db, "SELECT count(*) FROM ferry.archives WHERE state <> 'restored'") == records,
                sourceLocation: sourceLocation)
        #expect(try await count(db, "SELECT count(*) FROM ferry.archives WHERE state = 'restored'") == 0,
                sourceLocation: sourceLocation)
    }

    @Test("a cancelled job edited into a queued /etc/shadow upload, gzipped again, manifest recomputed: refused against the database's record, nothing written, also with --foreign")
    func tamperedArchive() async throws {
        let db = try await TestDatabase.make("archtamper")
        let (file, directory) = try await Self.archive(db)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.tamper(file, edit: { fields in
            guard Self.isCancelled(fields) else { return }
            Self.editJob(&fields) { job in
                job["state"] = .string("queued")
                job["kind"] = .string("upload")
                job["source"] = .string("/etc/shadow")
                job["finished_at"] = .null
            }
            // Only the enqueued event is kept, edited to match.
            if case .array(let events)? = fields["events"], case .object(var first)? = events.first,
               case .object(var data)? = first["data"] {
                data["kind"] = .string("upload")
                data["source"] = .string("/etc/shadow")
                first["data"] = .object(data)
                fields["events"] = .array([.object(first)])
            }
        })
        // The attacker's manifest counts what the edited file holds.
        var lines = 0
        var events = 0
        _ = try ArchiveFileReader.forEachJob(in: file) { line in
            lines += 1
            if case .object(let fields)? = try? JSONValue.parse(line), case .array(let list)? = fields["events"] { events += list.count }
        }
        var manifest = try #require(try ArchiveManifest.read(for: file))
        manifest.jobs = lines
        manifest.events = events
        try manifest.write(for: file)

        for arguments in [["archive", "restore", file], ["archive", "restore", "--foreign", file]] {
            let restore = try await FerryProcess.run(arguments, databaseURL: db.url)
            #expect(restore.status == 65, "\(arguments): \(restore.stdout)\(restore.stderr)")
            #expect(restore.stderr.contains("error:") && restore.stderr.contains("nothing was written"), "\(restore.stderr)")
            #expect(restore.stderr.contains("contradicts this database's record") || restore.stderr.contains("SHA-256"), "\(restore.stderr)")
            try await Self.expectNothingWritten(db, archived: 6, records: 1)
        }
        // Without the manifest the file is checked against the record alone: still refused.
        try FileManager.default.removeItem(atPath: ArchiveManifest.path(for: file))
        let bare = try await FerryProcess.run(["archive", "restore", file], databaseURL: db.url)
        #expect(bare.status == 65, "\(bare.stderr)")
        #expect(bare.stderr.contains("does not match the SHA-256") && bare.stderr.contains("this database's record"), "\(bare.stderr)")
        try await Self.expectNothingWritten(db, archived: 6, records: 1)
    }

    @Test("an archive made in another database is refused; with --foreign it is checked in full and restored, and the log goes on after it")
    func foreignArchive() async throws {
        let origin = try await TestDatabase.make("archorigin")
        let db = try await TestDatabase.make("archforeign")
        let (file, directory) = try await Self.archive(origin)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        let refused = try await FerryProcess.run(["archive", "restore", file], databaseURL: db.url)
        #expect(refused.status == 65, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stderr.contains("not recorded in this database") && refused.stderr.contains("--foreign"), "\(refused.stderr)")
        try await Self.expectNothingWritten(db, archived: 0, records: 0)

        let forced = try await FerryProcess.run(["archive", "restore", "--foreign", file], databaseURL: db.url)
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stdout.contains("restored 6 jobs"), "\(forced.stdout)")
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs") == 6)
        #expect(try await count(db, "SELECT count(*) FROM ferry.archives WHERE state = 'restored'") == 1)
        let verify = try await FerryProcess.run(["projection", "verify"], databaseURL: db.url)
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        // The other database's positions were ahead of this log's sequence: new appends do not collide with them.
        let store = db.store()
        defer { store.client.close() }
        let outcomes = try await store.enqueue([Self.spec(queue: "default")])
        #expect(outcomes.count == 1)
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs") == 7)
        // Restoring again does nothing.
        let again = try await FerryProcess.run(["archive", "restore", "--foreign", file], databaseURL: db.url)
        #expect(again.status == 0 && again.stdout.contains("already restored"), "\(again.stdout)\(again.stderr)")
    }

    @Test("a manifest whose counts lie is refused: against the content (foreign) and against the database's record")
    func lyingManifest() async throws {
        let origin = try await TestDatabase.make("archlieorigin")
        let db = try await TestDatabase.make("archlie")
        let (file, directory) = try await Self.archive(origin)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let original = try #require(try ArchiveManifest.read(for: file))

        // Foreign: the manifest is all there is; its checksum is right, its counts are not.
        let lies: [(inout ArchiveManifest) -> Void] = [{ $0.jobs += 1 }, { $0.events -= 1 }]
        for lie in lies {
            var manifest = original
            lie(&manifest)
            try manifest.write(for: file)
            let restore = try await FerryProcess.run(["archive", "restore", "--foreign", file], databaseURL: db.url)
            #expect(restore.status == 65, "\(restore.stdout)\(restore.stderr)")
            #expect(restore.stderr.contains("as its manifest says") && restore.stderr.contains("nothing was written"), "\(restore.stderr)")
            try await Self.expectNothingWritten(db, archived: 0, records: 0)
        }

        // Its own database: a manifest that contradicts the record is refused too.
        var manifest = original
        manifest.jobs += 1
        try manifest.write(for: file)
        let home = try await FerryProcess.run(["archive", "restore", file], databaseURL: origin.url)
        #expect(home.status == 65, "\(home.stdout)\(home.stderr)")
        #expect(home.stderr.contains("contradicts this database's record") && home.stderr.contains("jobs 7, recorded 6"), "\(home.stderr)")
        try await Self.expectNothingWritten(origin, archived: 6, records: 1)
        // The true manifest restores.
        try original.write(for: file)
        let restored = try await FerryProcess.run(["archive", "restore", file], databaseURL: origin.url)
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(try await count(origin, "SELECT count(*) FROM ferry.jobs") == 6)
    }

    @Test("an archive holding an unfinished job is refused, nothing written")
    func unfinishedJob() async throws {
        let origin = try await TestDatabase.make("archqorigin")
        let db = try await TestDatabase.make("archqueued")
        let (file, directory) = try await Self.archive(origin)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.tamper(file, edit: { fields in
            guard Self.isCancelled(fields) else { return }
            Self.editJob(&fields) { job in
                job["state"] = .string("queued")
                job["finished_at"] = .null
            }
        })
        let restore = try await FerryProcess.run(["archive", "restore", "--foreign", file], databaseURL: db.url)
        #expect(restore.status == 65, "\(restore.stdout)\(restore.stderr)")
        #expect(restore.stderr.contains("1 unfinished job(s)") && restore.stderr.contains("is queued"), "\(restore.stderr)")
        #expect(restore.stderr.contains("nothing was written"), "\(restore.stderr)")
        try await Self.expectNothingWritten(db, archived: 0, records: 0)
    }

    @Test("job rows that differ from the fold of their events are refused, nothing written")
    func rowsDifferFromFold() async throws {
        let origin = try await TestDatabase.make("archfoldorigin")
        let db = try await TestDatabase.make("archfold")
        let (file, directory) = try await Self.archive(origin)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A finished job's destination and progress edited in its row, its events left alone.
        try Self.tamper(file, edit: { fields in
            guard Self.isCancelled(fields) else { return }
            Self.editJob(&fields) { job in
                job["destination"] = .string("/etc/")
                job["bytes_done"] = .int(999_999)
            }
        })
        let restore = try await FerryProcess.run(["archive", "restore", "--foreign", file], databaseURL: db.url)
        #expect(restore.status == 65, "\(restore.stdout)\(restore.stderr)")
        #expect(restore.stderr.contains("differ from the fold of their events") && restore.stderr.contains("destination"), "\(restore.stderr)")
        #expect(restore.stderr.contains("nothing was written"), "\(restore.stderr)")
        try await Self.expectNothingWritten(db, archived: 0, records: 0)
    }

    @Test("signed manifests: a foreign archive edited and re-manifested without the key is refused under --signing-key; the signed original restores")
    func signedManifest() async throws {
        let origin = try await TestDatabase.make("archsignorigin")
        let db = try await TestDatabase.make("archsign")
        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-sign-\(UUID().uuidString)").path
        let key = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        try key.write(toFile: keyFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: keyFile) }
        let (file, directory) = try await Self.archive(origin, ["--signing-key", keyFile])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let signed = try #require(try ArchiveManifest.read(for: file))
        #expect(signed.signature?.count == 64)
        let manifestText = try String(contentsOfFile: ArchiveManifest.path(for: file), encoding: .utf8)
        #expect(!manifestText.contains(key), "the key is not in the manifest")

        // Edited and re-manifested (true SHA-256, counts), the old signature kept: consistent, but not signed by us.
        let original = try Data(contentsOf: URL(fileURLWithPath: file))
        try Self.tamper(file, edit: { fields in
            guard Self.isCancelled(fields) else { return }
            Self.editJob(&fields) { job in job["destination"] = .string("/etc/") }
        })
        let forged = try await FerryProcess.run(["archive", "restore", "--foreign", "--signing-key", keyFile, file], databaseURL: db.url)
        #expect(forged.status == 65, "\(forged.stdout)\(forged.stderr)")
        #expect(forged.stderr.contains("signature that is not valid"), "\(forged.stderr)")
        #expect(!forged.stderr.contains(key))
        try await Self.expectNothingWritten(db, archived: 0, records: 0)

        // The original file and its signed manifest restore; another key does not accept them.
        try original.write(to: URL(fileURLWithPath: file))
        try signed.write(for: file)
        let otherKey = keyFile + ".other"
        try Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString().write(toFile: otherKey, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: otherKey) }
        let wrongKey = try await FerryProcess.run(["archive", "restore", "--foreign", "--signing-key", otherKey, file], databaseURL: db.url)
        #expect(wrongKey.status == 65, "\(wrongKey.stderr)")
        try await Self.expectNothingWritten(db, archived: 0, records: 0)
        let restored = try await FerryProcess.run(["archive", "restore", "--foreign", "--signing-key", keyFile, file], databaseURL: db.url)
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs") == 6)
    }
}
