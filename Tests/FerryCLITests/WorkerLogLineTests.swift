import FerryTestSupport
import Foundation
import Testing

/// A worker's text log is one record per line, also for libpq's messages that come over several lines.
@Suite("worker text logs: one record per line", .tags(.process))
struct WorkerLogLineTests {
    @Test("a refused PostgreSQL connection is logged on one line, libpq's hint after a semicolon")
    func libpqOnOneLine() async throws {
        // Port 1 on loopback: nothing listens, the connection is refused at once.
        let worker = try BackgroundProcess(
            ferry: ["worker", "--handler", "noop", "--name", "lines"], databaseURL: "postgresql://postgres@127.0.0.1:1/ferry")
        try await eventually(timeout: .seconds(300), "the worker to say it waits for PostgreSQL") {
            worker.log.contains("waiting for PostgreSQL")
        }
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit(timeout: .seconds(300))
        let lines = worker.log.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let waiting = try #require(lines.first { $0.contains("waiting for PostgreSQL") })
        #expect(waiting.contains("Connection refused; Is the server running"), "\(worker.log)")
        #expect(!lines.contains { $0.hasPrefix("\t") || $0.hasPrefix("Is the server") }, "no continuation lines: \(worker.log)")
    }
}
