import FerryCore
import FerryStore
import Foundation

extension Dashboard {
    func overview(_ view: DashboardView) async throws -> DashboardPage {
        let stats = try await shared.value("queue_stats") { [store] in try await store.reads.queueStats() }
        let batches = try await shared.value("batches:200") { [store] in try await store.reads.batchStatusWithoutScheduleRuns(limit: 200) }.prefix(10).map { $0 }
        let runs = try await shared.value("schedule_run_groups") { [store] in try await store.reads.scheduleRunGroups() }
        let workers = try await shared.value("workers") { [store] in try await store.reads.workerStatus() }
        let throughput = try await shared.value("throughput") { [store] in try await store.reads.throughput() }
        let accounts = try await shared.value("accounts") { [store] in try await store.reads.accountStatus() }.filter(\.needsLogin)
        // Read from a hot standby, the page says how stale it may be.
        let standby = try await shared.value("standby") { [store] in try await store.reads.standbyStatus() }
        let alive = workers.filter { $0.heartbeatAgeSeconds < Self.aliveAfterSeconds && !$0.stopping }
        var lastHour = [String: (jobs: Int64, bytes: Int64)]()
        for row in throughput {
            lastHour[row.queue, default: (0, 0)].jobs += row.succeeded + row.failed
            lastHour[row.queue, default: (0, 0)].bytes += row.bytes
        }
        var html = searchBox(view)
        if let standby {
            html += "<p id=\"standby-note\">Read from a \(HTML.escape(standby.summary))</p>"
        }
        html += "<h3>Last hour</h3>" + ThroughputChart(throughput, now: Date()).html
            + "<p><a id=\"trends-link\" href=\"\(HTML.escape(base))/trends\">Trends</a>: a day or a week, per queue, account or provider</p>"
        if !accounts.isEmpty {
            let held = accounts.reduce(Int64(0)) { $0 + ($1.heldJobs ?? 0) }
            html += "<p class=\"err\" id=\"held-note\">\(held) jobs held: \(accounts.count) account(s) need "
                + "<code>ferry account login</code> (<a href=\"\(HTML.escape(base))/failed\">see which</a>)</p>"
        }
        html += "<h3>Queues</h3>"
        html += view.table(
            ["queue", "state", "jobs", "due now", "oldest wait", "paused", "finished last hour"],
            stats.map { row in
                let hour = lastHour[row.queue]
                return [HTML.escape(row.queue), view.status(row.state), "\(row.jobs)", "\(row.due)",
                        row.oldestWaitingSeconds > 0 ? DashboardView.age(row.oldestWaitingSeconds) : "",
                        row.paused ? "<a class=\"s-paused\" href=\"\(HTML.escape(base))/queues\">paused</a>" : "",
                        hour.map { "\($0.jobs) jobs, " + DashboardView.bytes($0.bytes) } ?? ""]
            })
        html += "<h3>Batches</h3>" + scheduleRunTable(runs, view) + batchTable(batches, view)
        html += "<h3>Workers</h3><p>\(alive.count) alive, \(alive.reduce(0) { $0 + $1.running }) jobs running, "
            + "\(alive.reduce(0) { $0 + $1.concurrency }) slots</p>"
        let json: JSONValue = .object([
            "queues": .array(stats.map(\.json)), "batches": .array(batches.map { Self.batchJSON($0, now: Date()) }),
            "schedule_runs": .array(runs.map(\.json)),
            "workers_alive": .int(Int64(alive.count)),
            "jobs_running": .int(alive.reduce(0) { $0 + $1.running }),
            "busy_slots": .int(alive.reduce(0) { $0 + $1.running }),
            "slots": .int(Int64(alive.reduce(0) { $0 + $1.concurrency })),
            "throughput": .array(throughput.map(\.json)),
            "accounts_needing_login": .array(accounts.map(\.json)),
            "standby": standby?.json ?? .null,
        ])
        return DashboardPage(title: "Overview", html: html, json: json)
    }

    func batches(_ view: DashboardView) async throws -> DashboardPage {
        let batches = try await shared.value("batches:200") { [store] in try await store.reads.batchStatusWithoutScheduleRuns(limit: 200) }
        let runs = try await shared.value("schedule_run_groups") { [store] in try await store.reads.scheduleRunGroups() }
        return DashboardPage(
            title: "Batches", html: scheduleRunTable(runs, view) + batchTable(batches, view),
            json: .object([
                "batches": .array(batches.map { Self.batchJSON($0, now: Date()) }), "schedule_runs": .array(runs.map(\.json)),
            ]))
    }

    private func batchTable(_ batches: [BatchStatusRow], _ view: DashboardView) -> String {
        let now = Date()
        return view.table(
            ["batch", "progress", "jobs", "queued", "running", "succeeded", "failed", "cancelled", "discarded", "bytes", "rate", "ETA",
             "enqueued"],
            batches.map { batch in
                let pace = BatchPace(batch, now: now)
                let progress = DashboardView.progress(batch)
                return [view.batchLink(batch.batch),
                 DashboardView.progressBar(progress.done, failed: progress.failed),
                 "\(batch.jobs)", "\(batch.queued)", "\(batch.running)", "\(batch.succeeded)",
                 batch.failed > 0 ? "<span class=\"s-failed\">\(batch.failed)</span>" : "0", "\(batch.cancelled)", "\(batch.discarded)",
                 HTML.escape(DashboardView.batchBytes(batch))
                    + (batch.archived.jobs > 0 ? " <span class=\"s-discarded\">+ \(batch.archived.jobs) archived</span>" : ""),
                 pace.rateText, pace.etaText, DashboardView.time(batch.enqueuedAt, now: now)]
            })
    }

    /// A batch's row with its pace, as the JSON of the pages that list batches.
    static func batchJSON(_ batch: BatchStatusRow, now: Date) -> JSONValue {
        guard case .object(var object) = batch.json else { return batch.json }
        object["pace"] = BatchPace(batch, now: now).json
        return .object(object)
    }

    func batch(
        _ name: String, state: String?, search: String?, after: UUID?, order: BatchJobOrder, _ view: DashboardView
    ) async throws -> DashboardPage? {
        guard let summary = try await shared.value("batch:" + name, { [store] in try await store.reads.batchStatus(name) }).first else {
            return try await archivedBatch(name)
        }
        let jobs = try await store.reads.batchJobs(
            name, order: order, state: state, search: search, after: after, firstJob: summary.firstJobID, limit: Self.pageSize)
        let next = jobs.count == Self.pageSize ? jobs.last?.jobID : nil
        let now = Date()
        var html = batchTable([summary], view)
        // The counts are of the jobs still in PostgreSQL: say what else the batch had, and how to bring it back.
        if let archived = summary.archived.summary(bytes: DashboardView.bytes) {
            html += "<p class=\"fix\" id=\"archived\">Also \(HTML.escape(archived)): <code>\(HTML.escape(summary.archived.restoreCommands.first ?? ""))</code> brings them back.</p>"
        }
        html += view.actionButton("/batches/\(HTML.component(name))/cancel", "Cancel batch")
        html += view.actionButton("/batches/\(HTML.component(name))/retry", "Retry failed and cancelled")
        html += view.actionButton("/batches/\(HTML.component(name))/discard", "Discard failed")
        let states = [""] + Self.states
        html += "<form method=\"get\">status <select name=\"status\">"
            + states.map { "<option\($0 == (state ?? "") ? " selected" : "") value=\"\($0)\">\($0.isEmpty ? "any" : $0)</option>" }.joined()
            + "</select> <input name=\"q\" placeholder=\"source or destination contains\" value=\"\(HTML.escape(search ?? ""))\">"
            + (order == .enqueued ? "" : "<input type=\"hidden\" name=\"sort\" value=\"\(order.rawValue)\">")
            + " <button>Filter</button></form>"
        // Sort links keep the filters and start again from the top.
        func query(_ order: BatchJobOrder, after: UUID? = nil) -> String {
            var parts = [String]()
            if order != .enqueued { parts.append("sort=\(order.rawValue)") }
            if let state { parts.append("status=\(HTML.component(state))") }
            if let search, !search.isEmpty { parts.append("q=\(HTML.component(search))") }
            if let after { parts.append("after=\(after.uuidString.lowercased())") }
            return "\(HTML.escape(base))/batches/\(HTML.component(name))" + (parts.isEmpty ? "" : "?" + HTML.escape(parts.joined(separator: "&")))
        }
        let labels: [(BatchJobOrder, String)] = [(.enqueued, "enqueued"), (.status, "status"), (.size, "size"), (.started, "started")]
        html += "<p class=\"sort\" id=\"sort\">sort by: " + labels.map { item in
            item.0 == order ? "<b>\(item.1)</b>" : "<a href=\"\(query(item.0))\">\(item.1)</a>"
        }.joined() + (order == .size || order == .started ? " (among the batch's first \(FerryReads.sortWindow) jobs)" : "") + "</p>"
        // Bulk actions: the checked jobs, or every job the filter matches (all pages).
        var hidden = "<input type=\"hidden\" name=\"batch\" value=\"\(HTML.escape(name))\">"
        var described = [String]()
        if let state {
            hidden += "<input type=\"hidden\" name=\"status\" value=\"\(HTML.escape(state))\">"
            described.append(HTML.escape(state))
        }
        if let search, !search.isEmpty {
            hidden += "<input type=\"hidden\" name=\"q\" value=\"\(HTML.escape(search))\">"
            described.append("matching “\(HTML.escape(search))”")
        }
        html += view.bulkForm(
            id: "bulk", fields: hidden, actions: [("retry", "Retry"), ("cancel", "Cancel"), ("discard", "Discard")],
            filter: described.isEmpty ? "of the batch" : "of the batch " + described.joined(separator: ", "))
        html += view.table(
            (!view.canAct ? [] : [""]) + ["job", "status", "attempt", "source", "destination", "size", "progress", "started", "worker", "last error"],
            jobs.map { job in
                (!view.canAct ? [] : [view.selectBox(job.jobID, form: "bulk")]) + [view.jobLink(job.jobID), view.status(job.status), "\(job.attempt)/\(job.maxAttempts)", HTML.escape(job.source),
                 HTML.escape(job.destination), job.bytesTotal.map(DashboardView.bytes) ?? "",
                 HTML.escape(job.percent.map { $0 + "%" } ?? ""), DashboardView.time(job.startedAt, now: now),
                 HTML.escape(job.worker ?? ""), "<span class=\"err\">\(HTML.escape(job.lastError ?? ""))</span>"]
            })
        if let next {
            html += "<a id=\"next\" href=\"\(query(order, after: next))\">next page →</a>"
        }
        let json: JSONValue = .object([
            "batch": Self.batchJSON(summary, now: Date()), "jobs": .array(jobs.map(\.json)), "sort": .string(order.rawValue),
            "next_after": next.map { .string($0.uuidString.lowercased()) } ?? .null,
        ])
        return DashboardPage(title: "Batch \(name)", html: html, json: json)
    }

    func job(_ id: UUID, _ view: DashboardView) async throws -> DashboardPage? {
        guard let job = try await store.reads.jobStatus(.job(id)).first else { return try await archivedJob(id) }
        let events = try await store.reads.events(of: id)
        var html = jobSummary(job, view)
        if job.state == "queued" || job.state == "running" { html += view.actionButton("/jobs/\(id.uuidString.lowercased())/cancel", "Cancel") }
        if job.state == "failed" || job.state == "cancelled" || job.state == "discarded" {
            html += view.actionButton("/jobs/\(id.uuidString.lowercased())/retry", "Retry")
            html += view.retryWithOptions("/jobs/\(id.uuidString.lowercased())/retry")
        }
        if job.state == "failed" { html += view.actionButton("/jobs/\(id.uuidString.lowercased())/discard", "Discard") }
        let fields: [(String, String)]
        if case .object(let object) = job.json {
            fields = object.sorted { $0.key < $1.key }.map { key, value in
                (key, key == "batch" && job.batch != nil ? view.batchLink(job.batch!) : HTML.escape(Self.text(value)))
            }
        } else {
            fields = []
        }
        html += "<h3>All fields</h3>"
        html += view.table(["field", "value"], fields.map { ["<b>\(HTML.escape($0.0))</b>", $0.1] })
        // The resume cursor: the session of the newest progress event that recorded one (what the next attempt
        // continues from: an upload session and offset, a download's durable offset, a listing cursor).
        let parsed = events.map { (event: $0, data: (try? JSONValue.parse($0.data)) ?? .null) }
        let cursor = parsed.last { $0.event.type == "progress" && $0.data["session"] != nil }?.data["session"] ?? .null
        html += "<h3>Resume cursor</h3>"
        html += cursor == .null
            ? "<p id=\"cursor\">none: the next attempt starts from the beginning</p>"
            : "<pre id=\"cursor\">\(HTML.escape(cursor.jsonText))</pre>"
        html += "<h3>Events</h3>"
        html += view.table(
            ["#", "type", "time", "worker", "lease", "data"],
            parsed.map { item in
                ["\(item.event.version)", HTML.escape(item.event.type), DashboardView.time(item.event.recordedAt),
                 HTML.escape(item.data["worker"]?.stringValue ?? ""), HTML.escape(item.data["lease"].map(Self.text) ?? ""),
                 "<pre>\(HTML.escape(item.event.data))</pre>"]
            })
        return DashboardPage(
            title: "Job \(id.uuidString.lowercased())", html: html,
            json: .object(["job": job.json, "resume_cursor": cursor, "events": .array(events.map(\.json))]))
    }

    /// Workers: each registered worker with its release, queues, heartbeat, uptime and slots (a fleet mid-rollout
    /// shows two releases), then the jobs running now by
    /// worker (what each is doing: job, kind, source → destination, progress).
    func workers(_ view: DashboardView) async throws -> DashboardPage {
        let workers = try await shared.value("workers") { [store] in try await store.reads.workerStatus() }
        let running = try await shared.value("running_jobs") { [store] in try await store.reads.runningJobs() }
        let now = Date()
        let byWorker = Dictionary(grouping: running, by: { $0.worker ?? "" })
        var html = view.table(
            ["name", "host", "pid", "version", "queues", "heartbeat", "up", "running", "slots", ""],
            workers.map { worker in
                [HTML.escape(worker.name), HTML.escape(worker.host), "\(worker.pid)", HTML.escape(worker.version ?? "?"),
                 HTML.escape(worker.queues.joined(separator: ", ")),
                 DashboardView.age(worker.heartbeatAgeSeconds) + " ago",
                 "<span title=\"since \(HTML.escape(DashboardView.utc(worker.startedAt.date)))\">" + DashboardView.age(now.timeIntervalSince(worker.startedAt.date)) + "</span>",
                 "\(worker.running)", "\(worker.concurrency)",
                 worker.stopping ? "stopping" : (worker.heartbeatAgeSeconds >= Self.aliveAfterSeconds ? "silent" : "")]
            })
        html += "<h2>Running now</h2>"
        html += running.isEmpty ? "<p>No job is running.</p>" : view.table(
            ["worker", "job", "kind", "source → destination", "progress", "started"],
            running.map { job in
                let fraction = job.bytesTotal.map { $0 > 0 ? Double(job.bytesDone) / Double($0) : 0 }
                return [HTML.escape(job.worker ?? ""), view.jobLink(job.jobID), HTML.escape(job.kind),
                        HTML.escape(job.source) + " → " + HTML.escape(job.destination),
                        (fraction.map { DashboardView.progressBar($0) + " " } ?? "") + DashboardView.bytes(job.bytesDone)
                            + (job.bytesTotal.map { " of " + DashboardView.bytes($0) } ?? ""),
                        DashboardView.time(job.startedAt, now: now)]
            })
        let json: JSONValue = .object([
            "workers": .array(workers.map { worker in
                var object = worker.json.objectValue ?? [:]
                object["uptime_seconds"] = .double(now.timeIntervalSince(worker.startedAt.date))
                object["jobs"] = .array((byWorker[worker.name] ?? []).map { .string($0.jobID.uuidString.lowercased()) })
                return .object(object)
            }),
            "running": .array(running.map(\.json)),
        ])
        return DashboardPage(title: "Workers", html: html, json: json)
    }

    static func text(_ value: JSONValue) -> String {
        switch value {
        case .null: ""
        case .string(let text): text
        default: value.jsonText
        }
    }
}
