import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// `ferry wait --progress` beyond the counts: the transfers in flight with their rates, an ETA that says when it
/// does not know yet, and why nothing moves when nothing does.
@Suite("ferry wait --progress: files in flight and why nothing moves", .tags(.postgres, .process))
struct WaitProgressTests {
    static func progressLines(_ db: TestDatabase, batch: String, timeout: String = "2.5") async throws -> [String] {
        let result = try await FerryProcess.run(["wait", "--batch", batch, "--progress", "--timeout", timeout], databaseURL: db.url)
        #expect(result.status == 75, "\(result.stdout)\(result.stderr)")
        return result.lines
    }

    @Test("a paused queue, a held account, a deferral and a queue no worker serves are each named with their fix")
    func whyNothingMoves() async throws {
        let db = try await TestDatabase.make("waitwhy")
        _ = try await WaitCommandTests.enqueue(db, batch: "paused", queues: ["stopped", "stopped"])
        let paused = try await FerryProcess.run(["queue", "pause", "stopped", "--reason", "maintenance"], databaseURL: db.url)
        #expect(paused.status == 0, "\(paused.stderr)")
        let pausedLine = try #require(try await Self.progressLines(db, batch: "paused").first { $0.hasPrefix("batch paused:") })
        #expect(pausedLine.contains("waiting: queue stopped is paused (ferry queue resume stopped)"), "\(pausedLine)")
        #expect(pausedLine.contains("ETA unknown"), "no guess while nothing moves: \(pausedLine)")

        _ = try await WaitCommandTests.enqueue(db, batch: "orphan", queues: ["nobody"])
        let orphanLine = try #require(try await Self.progressLines(db, batch: "orphan").first { $0.hasPrefix("batch orphan:") })
        #expect(orphanLine.contains("waiting: no live worker serves queue nobody (ferry worker --queues nobody)"), "\(orphanLine)")

        let later = #"{"kind":"fetch","source":"https://example.com/later.jpg","to":"/srv/","batch":"later","run_at":"+2h"}"#
        let deferred = try await FerryProcess.run(["enqueue", "--from", "-"], databaseURL: db.url, stdin: later)
        #expect(deferred.status == 0, "\(deferred.stderr)")
        let laterLine = try #require(try await Self.progressLines(db, batch: "later").first { $0.hasPrefix("batch later:") })
        #expect(laterLine.contains("waiting: deferred until 20") && (laterLine.contains(" UTC (in 2h00m)") || laterLine.contains(" UTC (in 1h59m)")), "\(laterLine)")

        try await db.query("INSERT INTO ferry.accounts (name, provider) VALUES ('box', 'dropbox')")
        try await db.query("SELECT ferry.enqueue('upload', '/srv/photos/a.jpg', 'dropbox:box:/Camera/', '{\"batch\": \"held\"}'::jsonb)")
        try await db.query("UPDATE ferry.accounts SET status = 'needs_reauth', status_reason = 'the refresh token was refused' WHERE name = 'box'")
        let heldLine = try #require(try await Self.progressLines(db, batch: "held").first { $0.hasPrefix("batch held:") })
        #expect(heldLine.contains("waiting: account box needs re-authorization") && heldLine.contains("ferry account login box"), "\(heldLine)")
    }

    @Test("every running transfer is listed with its bytes and rate from the live progress; the ETA waits for a rate")
    func filesInFlight() async throws {
        let db = try await TestDatabase.make("waitflight")
        let store = db.store()
        defer { store.client.close() }
        _ = try await WaitCommandTests.enqueue(db, batch: "flight", queues: ["default", "default", "default"])
        try await store.register(WorkerRegistration(name: "w-flight", queues: ["default"], concurrency: 4, host: "h", pid: 1))
        let claimed = try await store.claim(worker: "w-flight", queues: ["default"], limit: 2)
        #expect(claimed.count == 2)
        // The worker publishes its transfers' bytes about once a second; here a task stands in for it.
        let mover = Task {
            var bytes = 0
            while !Task.isCancelled {
                bytes += 262_144
                for job in claimed {
                    _ = try? await db.query(
                        """
                        INSERT INTO ferry.live_progress (job_id, worker, batch, bytes_done) VALUES ($1, 'w-flight', 'flight', $2)
                        ON CONFLICT (job_id) DO UPDATE SET bytes_done = excluded.bytes_done
                        """, [job.jobID, bytes])
                }
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        defer { mover.cancel() }
        // Read until a line carries a rate, however slowly the machine starts the process; a fixed window once
        // closed after the first line on a loaded machine.
        let wait = try BackgroundProcess(ferry: ["wait", "--batch", "flight", "--progress", "--timeout", "300"], databaseURL: db.url)
        defer { wait.signal(SIGKILL) }
        try await eventually(timeout: .seconds(120), interval: .milliseconds(100), "a transfer line with a rate") {
            wait.log.split(separator: "\n").contains { $0.hasPrefix("  ") && $0.hasSuffix("/s") && $0.contains("example.com/flight/") }
        }
        wait.signal(SIGKILL)
        let lines = wait.log.split(separator: "\n").map(String.init)
        let summaries = lines.filter { $0.hasPrefix("batch flight:") }
        #expect(summaries.first?.contains("ETA unknown yet (measuring)") == true, "\(lines)")
        // Each transfer under the summary, its route cut from the front to fit 80 columns (the file's name stays).
        let files = lines.filter { $0.hasPrefix("  ") && $0.contains("example.com/flight/") }
        for index in 0..<2 {
            #expect(files.contains { $0.contains("/flight/\(index).jpg → /srv/") }, "\(lines)")
        }
        // A later reading has a rate for each transfer (bytes per second, from two readings of the live bytes).
        #expect(files.contains { $0.hasSuffix("/s") && $0.contains("(size unknown)") }, "\(lines)")
        #expect(files.allSatisfy { $0.count <= 79 }, "fitted to the terminal's width: \(files)")
        #expect(summaries.contains { $0.contains("ETA unknown until a job finishes (3 sizes unknown)") } || summaries.count < 3, "\(summaries)")
        #expect(!lines.contains { $0.contains("waiting:") }, "two jobs run: nothing to explain")
    }

    @Test("bytes are never shown above a total; a transfer whose bytes all went says it is finishing, not a stuck 99.9 %")
    func bytesPastTotal() async throws {
        let db = try await TestDatabase.make("waitpast")
        let store = db.store()
        defer { store.client.close() }
        let ids = try await DashboardTests.seed(store, batch: "past", queue: "pq", count: 2)
        try await store.register(WorkerRegistration(name: "w-past", queues: ["pq"], concurrency: 4, host: "h", pid: 1))
        let claimed = try await store.claim(worker: "w-past", queues: ["pq"], limit: 2)
        #expect(claimed.count == 2)
        // One transfer has moved exactly its 1,000 bytes (the service still confirming), the other 5,000 of its 1,000.
        for (id, bytes) in [(ids[0], 1000), (ids[1], 5000)] {
            try await db.query(
                "INSERT INTO ferry.live_progress (job_id, worker, batch, bytes_done) VALUES ($1, 'w-past', 'past', $2)", [id, bytes])
        }
        let lines = try await Self.progressLines(db, batch: "past")
        let summary = try #require(lines.first { $0.hasPrefix("batch past:") })
        #expect(summary.contains("5.9 KiB (more than the 2.0 KiB expected)") || summary.contains("5.9 KiB (more than the 1.9 KiB expected)"),
                "done above the total is not shown as done/total: \(summary)")
        #expect(!summary.contains("5.9 KiB of") && !summary.contains("5.9 KiB/"), "\(summary)")
        #expect(lines.contains { $0.contains("all 1000 B moved, finishing") }, "\(lines)")
        #expect(!lines.contains { $0.contains("99.9%") }, "\(lines)")
    }
}
