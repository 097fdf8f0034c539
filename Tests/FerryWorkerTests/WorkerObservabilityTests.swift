import FerryTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(Glibc)
    import Glibc
#endif

@Suite("worker observability", .tags(.postgres, .process))
struct WorkerObservabilityTests {
    @Test("Prometheus metrics on --metrics-port (every interface) and JSON logs carrying job metadata")
    func metricsAndJSONLogs() async throws {
        let db = try await TestDatabase.make("metrics")
        _ = try await FerryProcess.run(
            ["enqueue", "fetch", "https://example.com/a.jpg", "--to", "/srv/", "--queue", "photos"], databaseURL: db.url)
        // Below Linux's ephemeral range (32768–60999), where the suite's own connections take their local ports.
        let port = Int.random(in: 20_000...32_000)
        let worker = try TestWorker.start(
            db, name: "observed", ["--handler", "noop", "--queues", "photos", "--metrics-port", "\(port)", "--log-format", "json"])
        try await eventually(timeout: .seconds(300), "job done") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 1
        }
        var body = ""
        try await eventually(timeout: .seconds(300), "metrics to show the success") {
            let data = try? await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!).0
            body = data.map { String(decoding: $0, as: UTF8.self) } ?? ""
            return body.contains(#"ferry_jobs_succeeded_total{kind="fetch",queue="photos"} 1"#)
        }
        #expect(body.contains(#"ferry_jobs_claimed_total{kind="fetch",queue="photos"} 1"#), "\(body)")
        #expect(body.contains("# HELP ferry_jobs_succeeded_total "))
        #expect(body.contains("ferry_job_start_latency_seconds_count"))
        #expect(!body.contains("job_id"), "no high-cardinality labels")
        worker.signal(SIGTERM)
        #expect(try await worker.waitForExit() == 0)
        let lines = worker.log.split(separator: "\n").filter { $0.hasPrefix("{") }
        #expect(!lines.isEmpty)
        let succeeded = try #require(lines.first { $0.contains("job succeeded") })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(succeeded.utf8)) as? [String: Any])
        #expect(object["worker"] as? String == "observed")
        #expect(object["kind"] as? String == "fetch")
        #expect((object["attempt"] as? NSNumber)?.intValue == 1, "numbers stay numbers: \(succeeded)")
        #expect((object["job"] as? String)?.count == 36)
        // Source → destination on success too, as the failures name them.
        #expect(object["source"] as? String == "https://example.com/a.jpg" && object["destination"] as? String == "/srv/a.jpg", "\(succeeded)")
        let time = try #require(object["time"] as? String)
        #expect(time.count == 24 && time.hasSuffix("Z") && Array(time)[19] == ".", "UTC to the millisecond: \(time)")
    }

    @Test("--log-format json: every line is a JSON object, also when PostgreSQL ends the worker's connections")
    func jsonLinesWhenConnectionsEnd() async throws {
        let db = try await TestDatabase.make("jsonlines")
        let worker = try TestWorker.start(db, name: "lines", ["--handler", "noop", "--log-format", "json"])
        try await eventually(timeout: .seconds(300), "the worker to start") { worker.log.contains("worker started") }
        // As a server restart or an operator does: the listener's idle connection gets a FATAL it did not ask for.
        try await eventually(timeout: .seconds(300), "the listener to connect") {
            try await count(
                db, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'") > 0
        }
        _ = try await db.query("""
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = 'ferry worker'
            """)
        try await eventually(timeout: .seconds(300), "the listener to reconnect") { worker.log.contains("notification listener reconnected") }
        worker.signal(SIGTERM)
        #expect(try await worker.waitForExit() == 0)
        for line in worker.log.split(separator: "\n") where !line.isEmpty {
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object != nil, "not a JSON object: \(line)")
        }
        #expect(worker.log.contains(#""sqlstate":"57P01""#), "the server's message is logged, as JSON: \(worker.log)")
    }
}
