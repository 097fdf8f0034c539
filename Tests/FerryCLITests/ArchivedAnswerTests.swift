import FerryCore
import FerryTestSupport
import Foundation
import Testing

/// After `ferry archive`, every command that looks a job or batch up says it was archived, when, to which file,
/// and how to restore it, with exit 67; the dashboard answers 410 Gone with the same facts (issue 24).
@Suite("archived jobs and batches answer the same way everywhere", .tags(.postgres))
struct ArchivedAnswerTests {
    @Test("status JOB, events JOB, status --batch, wait JOB, wait --batch and the dashboard (HTML and JSON)", .tags(.process))
    func everywhere() async throws {
        let db = try await TestDatabase.make("archived_answers")
        let jobs = try await ArchiveCommandTests.finishedJobs(db, count: 6)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-arch-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let archived = try await FerryProcess.run(["archive", "--finished-before", "0s", "--to", directory], databaseURL: db.url)
        #expect(archived.status == 0, "\(archived.stderr)")
        let file = try #require(ArchiveCommandTests.files(in: directory, suffix: ".jsonl.gz").first)
        let job = try #require(jobs.first)

        for arguments in [["status", job], ["events", job], ["status", "--batch", "nightly"], ["wait", job, "--timeout", "5"],
                          ["wait", "--batch", "nightly", "--timeout", "5"]] {
            let answer = try await FerryProcess.run(arguments, databaseURL: db.url)
            #expect(answer.status == 67, "\(arguments): \(answer.status) \(answer.stderr)")
            #expect(answer.stderr.hasPrefix("error: ") && answer.stderr.contains("was archived"), "\(arguments): \(answer.stderr)")
            #expect(answer.stderr.contains(file) && answer.stderr.contains("ferry archive restore \(file)"), "\(arguments): \(answer.stderr)")
        }
        // The batch's completion record still says how it ended.
        let wait = try await FerryProcess.run(["wait", "--batch", "nightly"], databaseURL: db.url)
        #expect(wait.stdout.contains("6 job(s)") && wait.stdout.contains("1 failed"), "\(wait.stdout)")
        // --json: the same facts as an object on stdout.
        for arguments in [["status", job, "--json"], ["events", job, "--json"], ["status", "--batch", "nightly", "--json"]] {
            let answer = try await FerryProcess.run(arguments, databaseURL: db.url)
            #expect(answer.status == 67, "\(arguments)")
            let object = try JSONValue.parse(answer.stdout)
            #expect(object["archived"]?["restore"]?.stringValue == "ferry archive restore \(file)"
                || object["archived"]?["files"]?.arrayValue?.first?["restore"]?.stringValue == "ferry archive restore \(file)", "\(arguments): \(answer.stdout)")
        }
        // Unknown ids and names still exit 66.
        #expect(try await FerryProcess.run(["status", UUIDv7.make().uuidString], databaseURL: db.url).status == 66)
        #expect(try await FerryProcess.run(["status", "--batch", "nope"], databaseURL: db.url).status == 66)

        try await DashboardProbe.inProcess(db, readOnly: true) { dashboard in
            for path in ["/jobs/\(job)", "/batches/nightly"] {
                let page = try await dashboard.get(path)
                #expect(page.status == 410, "\(path): \(page.status)")
                #expect(page.body.contains("id=\"archived\"") && page.body.contains("ferry archive restore \(file)"), "\(path): \(page.body)")
                let json = try await dashboard.get(path, json: true)
                #expect(json.status == 410)
                let object = try JSONValue.parse(json.body)
                #expect(object["archived"] != nil && json.body.contains("ferry archive restore"), "\(path): \(json.body)")
            }
            #expect(try await dashboard.get("/jobs/\(UUIDv7.make().uuidString.lowercased())").status == 404)
            #expect(try await dashboard.get("/batches/nope").status == 404)
        }

        // A ferry_reader login is told the same (through ferry.archived_job_status), and its waits start at all
        // (they check the schema through ferry.schema_version).
        let role = "arch_reader_\(UInt32.random(in: 0...UInt32.max))"
        try await db.query("CREATE ROLE \(role) LOGIN IN ROLE ferry_reader")
        let readerURL = db.url.replacingOccurrences(of: "postgres@", with: "\(role)@")
        for arguments in [["status", job], ["status", "--batch", "nightly"], ["wait", job, "--timeout", "5"],
                          ["wait", "--batch", "nightly", "--timeout", "5"]] {
            let answer = try await FerryProcess.run(arguments, databaseURL: readerURL)
            #expect(answer.status == 67, "as a reader, \(arguments): \(answer.status) \(answer.stderr)")
            #expect(answer.stderr.contains("ferry archive restore \(file)"), "as a reader, \(arguments): \(answer.stderr)")
        }

        // Restored, the job answers as before.
        #expect(try await FerryProcess.run(["archive", "restore", file], databaseURL: db.url).status == 0)
        #expect(try await FerryProcess.run(["status", job], databaseURL: db.url).status == 0)
    }

    @Test("a partly archived batch says so wherever its totals appear: wait, wait --json, status --batch, the dashboard; a restore takes it back", .tags(.process))
    func partlyArchivedBatch() async throws {
        let db = try await TestDatabase.make("archived_part")
        _ = try await ArchiveCommandTests.finishedJobs(db, count: 6)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-arch-part-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try await FerryProcess.run(["archive", "--finished-before", "0s", "--to", directory], databaseURL: db.url).status == 0)
        let file = try #require(ArchiveCommandTests.files(in: directory, suffix: ".jsonl.gz").first)
        // Two more jobs of the same batch, still in PostgreSQL.
        let store = db.store()
        defer { store.client.close() }
        _ = try await store.enqueue((0..<2).map { _ in
            JobSpec(
                jobID: UUIDv7.make(), kind: .fetch, source: "https://example.com/\(UUID().uuidString).jpg", destination: "/srv/in/",
                account: nil, queue: "default", batch: "nightly", priority: 0, maxAttempts: 3, runAt: nil, idempotencyKey: nil,
                metadata: nil, bytesTotal: 2048, details: [:])
        })
        let claimed = try await store.claim(worker: "w", queues: ["default"], limit: 10)
        _ = try await store.record(claimed.map { .succeeded($0, bytes: 2048) })

        let wait = try await FerryProcess.run(["wait", "--batch", "nightly", "--timeout", "5"], databaseURL: db.url)
        #expect(wait.status == 0, "\(wait.stderr)")
        // Six jobs went to the archive, five of them succeeded with 1000 bytes each: 4.9 KiB.
        #expect(wait.stdout.contains("all 2 job(s) succeeded") && wait.stdout.contains("; 6 archived (4.9 KiB) in \(file)"), "\(wait.stdout)")
        let json = try JSONValue.parse(try await FerryProcess.run(["wait", "--batch", "nightly", "--json"], databaseURL: db.url).stdout)
        #expect(json["archived"]?["jobs"] == .int(6) && json["archived"]?["bytes"] == .int(5000), "\(json)")
        #expect(json["archived"]?["files"]?.arrayValue?.first?.stringValue == file)
        let status = try await FerryProcess.run(["status", "--batch", "nightly"], databaseURL: db.url)
        #expect(status.stdout.contains("batch nightly: also 6 archived (4.9 KiB) in \(file) (ferry archive restore \(file) brings them back)"), "\(status.stdout)")
        let statusJSON = try JSONValue.parse(try await FerryProcess.run(["status", "--batch", "nightly", "--json"], databaseURL: db.url).stdout)
        #expect(statusJSON["batch"]?["archived"]?["bytes"] == .int(5000), "\(statusJSON.jsonText)")
        try await DashboardProbe.inProcess(db, readOnly: true) { dashboard in
            let page = try await dashboard.get("/batches/nightly")
            #expect(page.status == 200 && page.body.contains("id=\"archived\"") && page.body.contains("6 archived"), "\(page.body)")
            let list = try await dashboard.get("/batches")
            #expect(list.body.contains("+ 6 archived"), "\(list.body)")
        }
        // A reader login sees it too (through the view).
        let role = "part_reader_\(UInt32.random(in: 0...UInt32.max))"
        try await db.query("CREATE ROLE \(role) LOGIN IN ROLE ferry_reader")
        let reader = try await FerryProcess.run(
            ["wait", "--batch", "nightly", "--timeout", "5"], databaseURL: db.url.replacingOccurrences(of: "postgres@", with: "\(role)@"))
        #expect(reader.stdout.contains("6 archived"), "\(reader.stdout)\(reader.stderr)")

        // Restored, the batch is whole again and says nothing of archives.
        #expect(try await FerryProcess.run(["archive", "restore", file], databaseURL: db.url).status == 0)
        let whole = try await FerryProcess.run(["wait", "--batch", "nightly", "--timeout", "5"], databaseURL: db.url)
        #expect(whole.stdout.contains("7 of 8 job(s) succeeded") && !whole.stdout.contains("archived"), "\(whole.stdout)")
    }
}
