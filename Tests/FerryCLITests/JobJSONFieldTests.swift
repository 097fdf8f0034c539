import FerryCore
import FerryTestSupport
import Foundation
import Testing

/// One JSON shape per thing the CLI prints: enqueue's --json is JSON Lines like its --dry-run --json, with the same
/// field names, and a job carries one `state` (as the SQL views), never a second `status` beside it.
@Suite("ferry CLI: JSON field names", .tags(.postgres, .process))
struct JobJSONFieldTests {
    static func objects(_ output: String) throws -> [JSONValue] {
        try output.split(separator: "\n").map { try JSONValue.parse(String($0)) }
    }

    @Test("enqueue --json and --dry-run --json: one object per job per line, fate, source, destination and line alike")
    func enqueueLines() async throws {
        let db = try await TestDatabase.make("json_enqueue")
        let input = """
            {"kind":"fetch","source":"https://example.com/a.jpg","to":"/srv/in/","key":"a"}
            {"kind":"fetch","source":"https://example.com/b.jpg","to":"/srv/in/"}
            """
        let dry = try await FerryProcess.run(["enqueue", "--from", "-", "--json", "--dry-run"], databaseURL: db.url, stdin: input)
        #expect(dry.status == 0, "\(dry.stderr)")
        let real = try await FerryProcess.run(["enqueue", "--from", "-", "--json"], databaseURL: db.url, stdin: input)
        #expect(real.status == 0, "\(real.stderr)")
        #expect(!real.stdout.hasPrefix("["), "JSON Lines, not an array: \(real.stdout)")
        let planned = try Self.objects(dry.stdout)
        let enqueued = try Self.objects(real.stdout)
        #expect(planned.count == 2 && enqueued.count == 2, "\(dry.stdout)\(real.stdout)")
        for (plan, job) in zip(planned, enqueued) {
            for field in ["fate", "source", "destination", "line"] {
                #expect(plan[field] != nil && plan[field] == job[field], "\(field): \(plan) vs \(job)")
            }
        }
        #expect(enqueued.map { $0["destination"]?.stringValue } == ["/srv/in/a.jpg", "/srv/in/b.jpg"])
        #expect(enqueued.allSatisfy { $0["created"] == .bool(true) && UUID(uuidString: $0["job_id"]?.stringValue ?? "") != nil })
        #expect(enqueued[0]["key"] == .string("a"))
        // The same key again: the existing job, not created.
        let again = try await FerryProcess.run(["enqueue", "--from", "-", "--json"], databaseURL: db.url, stdin: input.components(separatedBy: "\n")[0])
        let existing = try Self.objects(again.stdout)
        #expect(existing.count == 1 && existing[0]["created"] == .bool(false) && existing[0]["job_id"] == enqueued[0]["job_id"], "\(again.stdout)")
    }

    @Test("a job in JSON has state (the views' name) and says why a queued one waits; no status field anywhere")
    func oneStateName() async throws {
        let db = try await TestDatabase.make("json_state")
        let later = #"{"kind":"fetch","source":"https://example.com/l.jpg","to":"/srv/in/","batch":"b","run_at":"+2h"}"#
        let ids = try await FerryProcess.run(["enqueue", "--from", "-"], databaseURL: db.url, stdin: later).lines
        let id = try #require(ids.first)
        let job = try JSONValue.parse(try await FerryProcess.run(["status", id, "--json"], databaseURL: db.url).stdout)
        #expect(job["state"] == .string("queued") && job["waiting"] == .string("scheduled") && job["cancel_requested"] == .bool(false), "\(job)")
        #expect(job["status"] == nil, "\(job)")
        let batch = try JSONValue.parse(try await FerryProcess.run(["status", "--batch", "b", "--json"], databaseURL: db.url).stdout)
        let jobs = try #require(batch["jobs"]?.arrayValue)
        #expect(jobs.count == 1 && jobs.allSatisfy { $0["state"] == .string("queued") && $0["status"] == nil }, "\(batch)")
        _ = try await FerryProcess.run(["cancel", id], databaseURL: db.url)
        let cancelled = try JSONValue.parse(try await FerryProcess.run(["status", id, "--json"], databaseURL: db.url).stdout)
        #expect(cancelled["state"] == .string("cancelled") && cancelled["waiting"] == .null && cancelled["status"] == nil, "\(cancelled)")
    }
}
