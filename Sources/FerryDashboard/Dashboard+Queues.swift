import FerryCore
import FerryStore
import Foundation

extension Dashboard {
    /// Queues: every queue that has jobs, a worker, or a pause on record, with its depth, due and running jobs,
    /// whether it is paused, since when and why, and Pause (with a reason) / Resume buttons (`ferry queue pause` /
    /// `resume`).
    func queues(_ view: DashboardView) async throws -> DashboardPage {
        let stats = try await shared.value("queue_stats") { [store] in try await store.reads.queueStats() }
        let workers = try await shared.value("workers") { [store] in try await store.reads.workerStatus() }
        // The reason lives in ferry.queue_controls, which a ferry_reader login may not read: the page then shows
        // the paused state (from queue_stats) without it.
        let controls = (try? await store.queueControls()) ?? []
        let alive = workers.filter { $0.heartbeatAgeSeconds < Self.aliveAfterSeconds && !$0.stopping }
        var names = Set(stats.map(\.queue)).union(controls.map(\.queue))
        for worker in alive { names.formUnion(worker.queues) }
        let control = Dictionary(controls.map { ($0.queue, $0) }, uniquingKeysWith: { $1 })
        let now = Date()
        let rows = names.sorted().map { name -> (name: String, counts: [String: Int64], due: Int64, paused: Bool, control: QueueControl?, workers: Int) in
            let mine = stats.filter { $0.queue == name }
            let counts = Dictionary(mine.map { ($0.state, $0.jobs) }, uniquingKeysWith: +)
            let paused = control[name]?.paused ?? mine.contains(where: \.paused)
            return (name, counts, mine.reduce(0) { $0 + $1.due }, paused, control[name], alive.filter { $0.queues.contains(name) }.count)
        }
        var html = rows.isEmpty ? "<p>No queues yet: a queue appears with its first job or worker.</p>" : ""
        html += view.table(
            ["queue", "state", "queued", "due now", "running", "failed", "workers", "reason", "since", ""],
            rows.map { row in
                let path = "/queues/\(HTML.component(row.name))"
                let button = row.paused
                    ? view.actionButton(path + "/resume", "Resume")
                    : view.actionForm(path + "/pause", "Pause",
                                      fields: "<input name=\"reason\" maxlength=\"200\" placeholder=\"reason (optional)\">")
                return [HTML.escape(row.name), row.paused ? view.status("paused") : view.status("running"),
                        "\(row.counts["queued"] ?? 0)", "\(row.due)", "\(row.counts["running"] ?? 0)", "\(row.counts["failed"] ?? 0)",
                        "\(row.workers)", HTML.escape(row.control?.paused == true ? row.control?.reason ?? "" : ""),
                        row.control.map { DashboardView.time($0.changedAt, now: now) } ?? "", button]
            }, rowIDs: rows.map { "queue-" + $0.name }, stack: true)
        let json: JSONValue = .object([
            "queues": .array(rows.map { row in
                .object([
                    "queue": .string(row.name), "paused": .bool(row.paused),
                    "queued": .int(row.counts["queued"] ?? 0), "due": .int(row.due), "running": .int(row.counts["running"] ?? 0),
                    "failed": .int(row.counts["failed"] ?? 0), "workers": .int(Int64(row.workers)),
                    "reason": row.control?.reason.map(JSONValue.string) ?? .null,
                    "changed_at": row.control.map { .string($0.changedAt.iso8601) } ?? .null,
                ])
            }),
        ])
        return DashboardPage(title: "Queues", html: html, json: json)
    }
}
