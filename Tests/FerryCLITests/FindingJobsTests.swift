import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// Finding jobs from the CLI (issue 34): `ferry status --batch` lists what needs the operator first and says what it
/// leaves out, `--status STATE` filters, and every command that takes a job id takes a start of one that only one
/// job has (as the dashboard and the shell completions do).
@Suite("finding jobs from the CLI", .tags(.postgres, .process))
struct FindingJobsTests {
    @Test("status --batch: the one failure of 241 jobs first, how many are not shown, --status STATE; bad states refused")
    func batchFailuresFirst() async throws {
        let db = try await TestDatabase.make("clifind")
        let store = db.store()
        defer { store.client.close() }
        // 240 successes enqueued first, then the one failure (the 241st in enqueue order).
        let ids = try await DashboardTests.seed(store, batch: "big", queue: "fq", count: 241, succeeded: 240)
        try await DashboardConsoleTests.fail(store, queue: "fq", ids: [ids[240]], errors: ["account_full: the account is full"])
        let failed = ids[240].uuidString.lowercased()

        let table = try await FerryProcess.run(["status", "--batch", "big"], databaseURL: db.url)
        #expect(table.status == 0, "\(table.stderr)")
        let rows = table.lines.filter { $0.count > 36 && UUID(uuidString: String($0.prefix(36))) != nil }
        #expect(rows.first?.hasPrefix(failed) == true && rows.first?.contains("failed") == true, "\(table.stdout)")
        #expect(rows.count == 100 && table.stdout.contains("(141 more job(s) not shown; use --state STATE or --limit)"))

        let json = try JSONValue.parse(try await FerryProcess.run(["status", "--batch", "big", "--limit", "5", "--json"], databaseURL: db.url).stdout)
        #expect(json["jobs"]?.arrayValue?.first?["job_id"] == .string(failed) && json["jobs"]?.arrayValue?.count == 5)
        #expect(json["jobs_not_shown"] == .int(236))

        let onlyFailed = try await FerryProcess.run(["status", "--batch", "big", "--state", "failed", "--json"], databaseURL: db.url)
        let only = try JSONValue.parse(onlyFailed.stdout)
        #expect(only["jobs"]?.arrayValue?.map { $0["job_id"] } == [.string(failed)] && only["jobs_not_shown"] == .int(0))
        let none = try await FerryProcess.run(["status", "--batch", "big", "--status", "running"], databaseURL: db.url)
        #expect(none.status == 0 && none.stdout.contains("no running jobs"))
        let succeeded = try JSONValue.parse(
            try await FerryProcess.run(["status", "--batch", "big", "--status", "SUCCEEDED", "--limit", "3", "--json"], databaseURL: db.url).stdout)
        #expect(succeeded["jobs"]?.arrayValue?.map { $0["job_id"] } == ids.prefix(3).map { .string($0.uuidString.lowercased()) })
        #expect(succeeded["jobs_not_shown"] == .int(237))

        // Hostile or misplaced states: usage errors before any query.
        for arguments in [
            ["--batch", "big", "--status", "failed' OR 1=1 --"], ["--state", "failed", "--search", "abc"], ["--batch", "big", "--status", ""],
            ["--account", "box", "--batch", "big"], ["--state", "failed", failed],
        ] {
            let refused = try await FerryProcess.run(["status"] + arguments, databaseURL: db.url)
            #expect(refused.status == 64, "\(arguments): \(refused.stderr)")
        }

        // Across batches: error text with spaces, an error code, a path, an id start; hostile text refused or harmless.
        for text in ["account is full", "error:account_full", String(failed.prefix(35))] {
            let found = try JSONValue.parse(try await FerryProcess.run(["status", "--search", text, "--json"], databaseURL: db.url).stdout)
            #expect(found["jobs"]?.arrayValue?.map { $0["job_id"] } == [.string(failed)], "\(text): \(found)")
        }
        let searched = try await FerryProcess.run(["status", "--search", "account is full"], databaseURL: db.url)
        #expect(searched.status == 0 && searched.stdout.contains(failed) && searched.stdout.contains("account_full"), "\(searched.stdout)")
        let nothing = try await FerryProcess.run(["status", "--search", "no such text' OR 1=1 --"], databaseURL: db.url)
        #expect(nothing.status == 0 && nothing.stdout.contains("no job matches"), "\(nothing.stdout)\(nothing.stderr)")
        for (text, words) in [("ab", "at least 3"), (String(repeating: "x", count: 201), "at most 200"), ("", "type a job id")] {
            let refused = try await FerryProcess.run(["status", "--search", text], databaseURL: db.url)
            #expect(refused.status == 65 && refused.stderr.contains(words), "\(text.prefix(10)): \(refused.stderr)")
        }
        // Lists across batches by state, queue and account: the one failure, newest successes first.
        func listed(_ arguments: [String]) async throws -> [JSONValue] {
            let result = try await FerryProcess.run(["status"] + arguments + ["--json"], databaseURL: db.url)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            return try JSONValue.parse(result.stdout)["jobs"]?.arrayValue ?? []
        }
        #expect(try await listed(["--state", "failed"]).map { $0["job_id"] } == [.string(failed)])
        #expect(try await listed(["--state", "failed", "--queue", "fq"]).map { $0["job_id"] } == [.string(failed)])
        #expect(try await listed(["--state", "failed", "--queue", "elsewhere"]).isEmpty)
        #expect(try await listed(["--account", "nobody"]).isEmpty)
        // By account and by its provider: a job with an account, among the 241 without.
        try await db.query("INSERT INTO ferry.accounts (name, provider) VALUES ('box', 'dropbox')")
        let boxed = try await db.query(
            "SELECT ferry.enqueue('upload', '/srv/photos/a.jpg', 'dropbox:box:/Camera/', '{\"batch\": \"acct\"}'::jsonb)::text")
        let boxJob = try boxed.rows[0].decode(String.self, at: 0)
        #expect(try await listed(["--account", "box"]).map { $0["job_id"] } == [.string(boxJob)])
        #expect(try await listed(["--provider", "dropbox", "--state", "queued"]).map { $0["job_id"] } == [.string(boxJob)])
        #expect(try await listed(["--provider", "s3"]).isEmpty)
        let newest = try await listed(["--state", "succeeded", "--limit", "3"])
        #expect(newest.map { $0["job_id"] } == ids[237..<240].reversed().map { .string($0.uuidString.lowercased()) }, "\(newest)")
        let both = try await FerryProcess.run(["status", "--search", "account", "--batch", "big"], databaseURL: db.url)
        #expect(both.status == 64, "\(both.stderr)")
    }

    @Test("a unique start of a job id works for status, events, retry, cancel, discard and wait; an ambiguous one is refused with the count; a missing one is not found")
    func idPrefixes() async throws {
        let db = try await TestDatabase.make("cliprefix")
        let store = db.store()
        defer { store.client.close() }
        // 0-1 failed, 2 queued.
        let ids = try await DashboardTests.seed(store, batch: "p", queue: "pq", count: 3, failed: 2)
        let text = ids.map { $0.uuidString.lowercased() }
        // The shortest start of each id that no other has (ids made in one millisecond share their first digits).
        func unique(_ id: String) -> String {
            (8...36).lazy.map { String(id.prefix($0)) }.first { start in text.filter { $0.hasPrefix(start) }.count == 1 }!
        }

        let status = try await FerryProcess.run(["status", unique(text[0]), "--json"], databaseURL: db.url)
        #expect(status.status == 0, "\(status.stderr)")
        let shown = try JSONValue.parse(status.stdout)
        #expect(shown["job_id"] == .string(text[0]))
        let events = try await FerryProcess.run(["events", unique(text[0]).uppercased()], databaseURL: db.url)
        #expect(events.status == 0 && events.stdout.contains("enqueued"), "\(events.stderr)")
        let retry = try await FerryProcess.run(["retry", unique(text[0])], databaseURL: db.url)
        #expect(retry.status == 0 && retry.lines == ["\(text[0]) requeued"], "\(retry.stderr)")
        let discard = try await FerryProcess.run(["discard", unique(text[1])], databaseURL: db.url)
        #expect(discard.status == 0 && discard.lines == ["\(text[1]) discarded"], "\(discard.stderr)")
        let cancel = try await FerryProcess.run(["cancel", unique(text[2])], databaseURL: db.url)
        #expect(cancel.status == 0 && cancel.lines == ["\(text[2]) cancelled"], "\(cancel.stderr)")
        let wait = try await FerryProcess.run(["wait", unique(text[2]), "--timeout", "30"], databaseURL: db.url)
        #expect(wait.status == 1 && wait.stdout.contains("cancelled"), "\(wait.stdout) \(wait.stderr)")

        // Ambiguous: the digits all three share. Nothing is changed; the refusal counts the jobs and says the fix.
        let shared = String(text[0].prefix(zip(text[0], text[2]).prefix { $0 == $1 }.count))
        if !shared.isEmpty {
            let ambiguous = try await FerryProcess.run(["retry", shared], databaseURL: db.url)
            #expect(ambiguous.status == 65, "\(ambiguous.stderr)")
            #expect(ambiguous.stderr.contains("is the start of 3 job ids") && ambiguous.stderr.contains("give more of the id"), "\(ambiguous.stderr)")
            #expect(try await DashboardTests.state(db, ids[2]) == "cancelled")
        }
        // A start no job has: not found (66). Not hex at all: a usage problem before connecting (65).
        let missing = try await FerryProcess.run(["cancel", "ffffffff-ff"], databaseURL: db.url)
        #expect(missing.status == 66 && missing.stderr.contains("no job id starts with ffffffff-ff"), "\(missing.stderr)")
        for hostile in ["trip", "0193'; DROP TABLE ferry.jobs; --", String(repeating: "a", count: 40), "%"] {
            let refused = try await FerryProcess.run(["retry", hostile], databaseURL: db.url)
            #expect(refused.status == 65 && refused.stderr.contains("not a job id"), "\(hostile): \(refused.stderr)")
        }
    }
}
