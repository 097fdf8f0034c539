import FerryTestSupport
import Foundation
import Postgres
import Testing

/// A worker's text log is one record per line, also for libpq's messages that come over several lines.
@Suite("worker text logs: one record per line; a refusal said once", .tags(.process))
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

    @Test("a worker that refuses to start says so once: one error line with its fix and exit code, not a log error beside it", .tags(.postgres))
    func refusalSaidOnce() async throws {
        let admin = PostgresClient(configuration: PostgresConfiguration(connectionString: try TestDatabase.adminURL, poolSize: 1))
        let name = "ferry_refuse_\(UInt32.random(in: 0...UInt32.max))"
        try await admin.withConnection { try $0.execute("CREATE DATABASE \(name)") }
        admin.close()
        let empty = TestDatabase.replacingDatabase(in: try TestDatabase.adminURL, with: name)
        for (url, status, words) in [
            (empty, Int32(78), "run `ferry migrate`"),
            ("postgresql://postgres@127.0.0.1:1/ferry", Int32(69), "PostgreSQL is unavailable"),
        ] {
            let worker = try BackgroundProcess(
                ferry: ["worker", "--handler", "noop", "--name", "refused", "--wait-for-schema", "0"], databaseURL: url)
            #expect(try await worker.waitForExit(timeout: .seconds(300)) == status, "\(worker.log)")
            let errors = worker.log.split(separator: "\n").filter { $0.hasPrefix("error") || $0.contains(" error ") }
            #expect(errors.count == 1 && errors[0].contains(words), "one error, with the fix: \(worker.log)")
        }
    }
}
