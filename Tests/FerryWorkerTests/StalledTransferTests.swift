import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 36: a provider that stops sending mid-body, its connection open. A whole-request deadline would hold the
/// piece for as long as the largest file could take; `--read-idle-timeout` fails it after that long without a byte,
/// as a retryable failure, and the next attempt resumes.
@Suite("a transfer that goes silent mid-body", .tags(.postgres, .process))
struct StalledTransferTests {
    @Test("a download stalled mid-body fails its attempt after --read-idle-timeout (retryable), then finishes intact")
    func stalledDownload() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("stall")
        let dir = try temporaryFolder("stall")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sha = try await URLFetchTests.webFile(server, "stall.bin", size: 4 << 20, seed: 36)
        // The body stops before its second MiB and the connection stays open: silence, not an error.
        try await server.setFaults(["download_pause_at_byte": .int(1 << 20)])
        try await URLFetchTests.enqueue(db, server.baseURL + "/web/stall.bin", to: dir + "/stall.bin", ["--max-attempts", "50"])
        let worker = try TestWorker.transfers(db, name: "stalled", ["--read-idle-timeout", "2"])
        defer { worker.signal(SIGKILL) }

        try await eventually(timeout: .seconds(120), interval: .milliseconds(100), "the stalled attempt to fail") {
            try await count(db, "SELECT count(*) FROM ferry.events WHERE type = 'retry_scheduled'") >= 1
        }
        let first = try await db.query("""
            SELECT data->>'error',
                   extract(epoch FROM recorded_at - (SELECT min(recorded_at) FROM ferry.events WHERE type = 'claimed'))::float8
              FROM ferry.events WHERE type = 'retry_scheduled' ORDER BY position LIMIT 1
            """).rows[0]
        let error = try first.decode(String.self, at: 0)
        let seconds = try first.decode(Double.self, at: 1)
        #expect(error.hasPrefix("http_timeout: "), "a stall is a timeout, retried: \(error)")
        // At least the idle bound (the first MiB arrives at once), and nowhere near the old 120 s read deadline.
        #expect(seconds >= 2 && seconds < 20, "the attempt failed \(seconds) s after its claim")
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'failed'") == 0)

        try await server.setFaults([:])
        try await eventually(timeout: .seconds(120), interval: .milliseconds(200), "the fetch to finish once the server talks") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 1
        }
        #expect(try DropboxAccounts.sha256(dir + "/stall.bin") == sha)
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()
    }
}
