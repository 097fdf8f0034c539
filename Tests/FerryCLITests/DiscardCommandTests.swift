import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

/// `ferry discard`: the CLI's side of the `discarded` event (migration 0032), in `ferry cancel`'s and `ferry
/// retry`'s output style.
@Suite("ferry discard", .tags(.postgres, .process))
struct DiscardCommandTests {
    @Test("discard named failed jobs and a batch's failed jobs; other states exit 1; status, wait and verify agree")
    func discard() async throws {
        let db = try await TestDatabase.make("clidiscard")
        let store = db.store()
        defer { store.client.close() }
        // 0-3 failed, 4 succeeded, 5 queued.
        let ids = try await DashboardTests.seed(store, batch: "trip", queue: "dq", count: 6, failed: 4, succeeded: 1)
        let text = ids.map { $0.uuidString.lowercased() }

        let named = try await FerryProcess.run(["discard", text[0], text[1]], databaseURL: db.url)
        #expect(named.status == 0, "\(named.stderr)")
        #expect(named.lines == ["\(text[0]) discarded", "\(text[1]) discarded"])
        // Again: the jobs are discarded already, which is what was asked.
        let again = try await FerryProcess.run(["discard", text[0]], databaseURL: db.url)
        #expect(again.status == 0 && again.lines == ["\(text[0]) unchanged (discarded)"])
        // A succeeded or queued job is not discarded: exit 1, the refusal on stderr.
        let refused = try await FerryProcess.run(["discard", text[4]], databaseURL: db.url)
        #expect(refused.status == 1 && refused.stderr.contains("error: job \(text[4]) is succeeded; only failed jobs can be discarded"))
        let unknown = try await FerryProcess.run(["discard", text[2], UUIDv7.make().uuidString], databaseURL: db.url)
        #expect(unknown.status == 66 && unknown.stderr.contains("error: no such job"))
        #expect(try await DashboardTests.state(db, ids[2]) == "discarded", "the known job of the list is discarded")

        // The batch: only its failed jobs, listed as changed, in JSON too.
        let batch = try await FerryProcess.run(["discard", "--batch", "trip", "--status", "failed", "--json"], databaseURL: db.url)
        #expect(batch.status == 0, "\(batch.stderr)")
        let items = try #require(try JSONValue.parse(batch.stdout).arrayValue)
        let discarded = items.filter { $0["action"] == .string("discarded") }
        #expect(discarded.map { $0["job_id"] } == [.string(text[3])])
        #expect(try await DashboardTests.state(db, ids[5]) == "queued")
        let wrongStatus = try await FerryProcess.run(["discard", "--batch", "trip", "--status", "queued"], databaseURL: db.url)
        #expect(wrongStatus.status == 64 && wrongStatus.stderr.contains("only failed jobs can be discarded"))
        #expect(try await FerryProcess.run(["discard"], databaseURL: db.url).status == 64)

        let status = try await FerryProcess.run(["status", "--batch", "trip", "--json"], databaseURL: db.url)
        let row = try JSONValue.parse(status.stdout)
        let batchRow = row["batch"] ?? row
        #expect(batchRow["discarded"] == .int(4) && batchRow["failed"] == .int(0), "\(status.stdout)")
        let table = try await FerryProcess.run(["status"], databaseURL: db.url)
        #expect(table.stdout.contains("DISCARDED"))
        // Cancel the queued job: the batch finishes, and discarded jobs did not succeed.
        _ = try await FerryProcess.run(["cancel", text[5]], databaseURL: db.url)
        let wait = try await FerryProcess.run(["wait", "--batch", "trip"], databaseURL: db.url)
        #expect(wait.status == 1 && wait.stdout.contains("1 of 6 job(s) succeeded, 0 failed, 1 cancelled, 4 discarded"), "\(wait.stdout)")
        let verify = try await FerryProcess.run(["projection", "verify"], databaseURL: db.url)
        #expect(verify.status == 0 && verify.stdout.contains("0 differences"), "\(verify.stdout)")
        // A named retry brings a discarded job back.
        let retry = try await FerryProcess.run(["retry", text[0]], databaseURL: db.url)
        #expect(retry.status == 0 && retry.lines == ["\(text[0]) requeued"])
    }

    @Test("a batch retry lists only the jobs it requeued, in text and JSON; nothing to retry says so on stderr")
    func batchRetryListsChanged() async throws {
        let db = try await TestDatabase.make("cliretrybatch")
        let store = db.store()
        defer { store.client.close() }
        // 0-1 failed, 2-4 succeeded, 5 queued.
        let ids = try await DashboardTests.seed(store, batch: "trip", queue: "rq", count: 6, failed: 2, succeeded: 3)
        let text = ids.map { $0.uuidString.lowercased() }
        let retry = try await FerryProcess.run(["retry", "--batch", "trip"], databaseURL: db.url)
        #expect(retry.status == 0 && retry.lines == ["\(text[0]) requeued", "\(text[1]) requeued"], "\(retry.stdout)")
        let again = try await FerryProcess.run(["retry", "--batch", "trip", "--json"], databaseURL: db.url)
        #expect(again.status == 0 && again.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
        let plain = try await FerryProcess.run(["retry", "--batch", "trip"], databaseURL: db.url)
        #expect(plain.status == 0 && plain.stdout.isEmpty && plain.stderr.contains("nothing to retry"))
    }
}

