import FerryTestSupport
import Foundation
import Testing

/// The shipped alert rules (deploy/prometheus/ferry-alerts.yaml) under Prometheus's own tools: they load
/// (`promtool check rules`), their unit tests pass (`promtool test rules`: a paused queue does not match the backlog
/// alerts, endless deferrals do).
@Suite("alert rules", .tags(.process))
struct AlertRulesTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy/prometheus")

    static func promtool(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let path = try #require(
            ["/usr/bin/promtool", "/usr/local/bin/promtool"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "promtool is missing: scripts/install-deps.sh installs Debian's prometheus package")
        let result = try await ChildProcess.run(path, arguments, currentDirectory: directory.path, mergeOutput: true)
        return (result.status, result.stdout)
    }

    @Test("promtool checks the rules and passes their tests: paused queues stay quiet, endless deferrals fire")
    func promtoolRules() async throws {
        let check = try await Self.promtool(["check", "rules", "ferry-alerts.yaml"])
        #expect(check.status == 0, "\(check.output)")
        let test = try await Self.promtool(["test", "rules", "ferry-alerts-tests.yaml"])
        #expect(test.status == 0, "\(test.output)")
    }

    @Test("both backlog alerts exclude a paused queue by ferry_queue_paused")
    func backlogAlertsExcludePaused() throws {
        let rules = try String(contentsOf: Self.directory.appendingPathComponent("ferry-alerts.yaml"), encoding: .utf8)
        for alert in ["FerryBacklogWaiting", "FerryQueueNotDraining"] {
            let start = try #require(rules.range(of: "alert: \(alert)"))
            let body = rules[start.upperBound...].components(separatedBy: "- alert:")[0]
            #expect(body.contains("unless on (queue) max by (queue) (ferry_queue_paused) == 1"), "\(alert)")
        }
    }
}
