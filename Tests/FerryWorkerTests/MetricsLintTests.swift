import FerryCore
import FerryTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// A worker's `/metrics` after real jobs, checked by Prometheus's own linter (`promtool check metrics`, from
/// Debian's `prometheus` package, which `make test` installs), plus the standard process metrics and the build info.
@Suite("metrics lint", .tags(.postgres, .process))
struct MetricsLintTests {
    @Test("promtool check metrics finds nothing in a worker's scrape; process_* metrics and ferry_build_info are there")
    func promtoolClean() async throws {
        let promtool = try #require(
            ["/usr/bin/promtool", "/usr/local/bin/promtool"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "promtool is missing: scripts/install-deps.sh installs Debian's prometheus package")
        let db = try await TestDatabase.make("metrics_lint")
        for index in 0..<5 {
            _ = try await FerryProcess.run(
                ["enqueue", "fetch", "https://example.com/\(index).jpg", "--to", "/srv/", "--queue", "photos"], databaseURL: db.url)
        }
        // An account, so the account gauges are in the scrape too.
        try await db.query("INSERT INTO ferry.accounts (name, provider, max_concurrent) VALUES ('photos', 'dropbox', 3)")
        let port = Int.random(in: 20_000...32_000)
        let worker = try TestWorker.start(
            db, name: "linted", ["--handler", "fail-until:2", "--queues", "photos", "--metrics-port", "\(port)", "--retry-base", "0.05"])
        try await eventually(timeout: .seconds(300), "jobs done") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 5
        }
        var body = ""
        try await eventually(timeout: .seconds(300), "a scrape") {
            let data = try? await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!).0
            body = data.map { String(decoding: $0, as: UTF8.self) } ?? ""
            return body.contains("ferry_jobs_succeeded_total") && body.contains("ferry_account_max_concurrent{")
        }
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()

        for name in ["process_cpu_seconds_total", "process_resident_memory_bytes", "process_virtual_memory_bytes", "process_open_fds",
                     "process_max_fds", "process_start_time_seconds"] {
            #expect(body.contains("\n\(name) ") || body.hasPrefix("\(name) "), "\(name) missing")
        }
        #expect(body.split(separator: "\n").contains { $0.hasPrefix("ferry_build_info{") && $0.contains("schema=") && $0.hasSuffix(" 1.0") || $0.hasSuffix(" 1") },
                "build info: \(body.prefix(400))")
        // By provider and account (a web fetch uses none), and the errors by their code.
        let scrape = PrometheusText(body)
        #expect(scrape.value("ferry_provider_jobs_total", ["provider": "web", "account": "none", "outcome": "succeeded"]) == 5, "\(body)")
        #expect(scrape.value("ferry_provider_jobs_total", ["provider": "web", "account": "none", "outcome": "retried"]) == 5)
        #expect(scrape.value("ferry_job_errors_total", ["kind": "fetch", "queue": "photos", "outcome": "retried", "reason": "scripted"]) == 5)
        #expect(scrape.value("ferry_transfer_in_flight_bytes") == 0)
        let resident = body.split(separator: "\n").first { $0.hasPrefix("process_resident_memory_bytes ") }
        #expect((resident.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0) > 1_000_000, "a real RSS: \(resident ?? "none")")

        let lint = try await ChildProcess.run(promtool, ["check", "metrics"], stdin: body, mergeOutput: true)
        let report = lint.stdout
        #expect(lint.status == 0, "promtool: \(report)")
        #expect(report.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "promtool warnings: \(report)")

        // The shipped dashboard and alert rules query only metrics a worker exposes (a renamed metric fails here): the
        // ones in this scrape, and those a worker creates at first use (by provider and account), as declared.
        #expect(scrape.value("ferry_account_max_concurrent", ["provider": "dropbox", "account": "photos"]) == 3)
        let scraped = Set(body.split(separator: "\n").compactMap { line -> String? in
            line.hasPrefix("# HELP ") ? line.split(separator: " ").dropFirst(2).first.map(String.init) : nil
        })
        let declared = try Self.declaredMetrics()
        #expect(declared.count >= 25 && scraped.subtracting(declared).allSatisfy { $0.hasPrefix("process_") || $0 == "ferry_build_info" }, "declared: \(declared.sorted())")
        let exposed = scraped.union(declared)
        for (file, least) in [("deploy/grafana/ferry-dashboard.json", 10), ("deploy/prometheus/ferry-alerts.yaml", 10), ("deploy/kubernetes/worker-keda.yaml", 2)] {
            let named = try Self.metricNames(in: file)
            #expect(named.count >= least, "\(file) names \(named.count) metrics")
            #expect(named.subtracting(exposed).isEmpty, "\(file) queries metrics no worker exposes: \(named.subtracting(exposed).sorted())")
        }
    }

    /// Every metric the worker declares (`MetricSpec(base:unit:)` in Sources/FerryWorker), by its full name.
    static func declaredMetrics() throws -> Set<String> {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let sources = root.appendingPathComponent("Sources/FerryWorker")
        let pattern = try NSRegularExpression(pattern: #"MetricSpec\(\s*base: "([a-z_]+)", unit: "([a-z_]*)""#)
        var names = Set<String>()
        for case let file as URL in FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)! where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let base = Range(match.range(at: 1), in: text), let unit = Range(match.range(at: 2), in: text) else { continue }
                names.insert(text[unit].isEmpty ? String(text[base]) : "\(text[base])_\(text[unit])")
            }
        }
        return names
    }

    /// The `ferry_…` and `process_…` metric names a deploy file's queries use, histogram series by their family.
    static func metricNames(in file: String) throws -> Set<String> {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"\b(?:ferry|process)_[a-z_]+\b"#)
        let range = NSRange(text.startIndex..., in: text)
        return Set(pattern.matches(in: text, range: range).compactMap { match -> String? in
            guard let found = Range(match.range, in: text) else { return nil }
            var name = String(text[found])
            for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) { name.removeLast(suffix.count) }
            return name
        })
    }
}
