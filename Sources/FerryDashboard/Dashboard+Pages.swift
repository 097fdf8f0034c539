import FerryCore
import FerryStore
import Foundation

extension Dashboard {
    func overview(_ view: DashboardView) async throws -> DashboardPage {
        let stats = try await shared.value("queue_stats") { [store] in try await store.queueStats() }
        let batches = try await shared.value("batches:200") { [store] in try await store.batchStatus(limit: 200) }.prefix(10).map { $0 }
        let workers = try await shared.value("workers") { [store] in try await store.workerStatus() }
        let throughput = try await shared.value("throughput") { [store] in try await store.throughput() }
        let accounts = try await shared.value("accounts") { [store] in try await store.accountStatus() }.filter(\.needsLogin)
        let alive = workers.filter { $0.heartbeatAgeSeconds < Self.aliveAfterSeconds && !$0.stopping }
        var lastHour = [String: (jobs: Int64, bytes: Int64)]()
        for row in throughput {
            lastHour[row.queue, default: (0, 0)].jobs += row.succeeded + row.failed
            lastHour[row.queue, default: (0, 0)].bytes += row.bytes
        }
        var html = "<h3>Last hour</h3>" + ThroughputChart(throughput, now: Date()).html
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
                        row.oldestWaitingSeconds > 0 ? DashboardView.age(row.oldestWaitingSeconds) : "", row.paused ? "paused" : "",
                        hour.map { "\($0.jobs) jobs, " + DashboardView.bytes($0.bytes) } ?? ""]
            })
        html += "<h3>Batches</h3>" + batchTable(batches, view)
        html += "<h3>Workers</h3><p>\(alive.count) alive, \(alive.reduce(0) { $0 + $1.running }) jobs running, "
            + "\(alive.reduce(0) { $0 + $1.concurrency }) slots</p>"
        let json: JSONValue = .object([
            "queues": .array(stats.map(\.json)), "batches": .array(batches.map { Self.batchJSON($0, now: Date()) }),
            "workers_alive": .int(Int64(alive.count)),
            "jobs_running": .int(alive.reduce(0) { $0 + $1.running }),
            "busy_slots": .int(alive.reduce(0) { $0 + $1.running }),
            "slots": .int(Int64(alive.reduce(0) { $0 + $1.concurrency })),
            "throughput": .array(throughput.map(\.json)),
            "accounts_needing_login": .array(accounts.map(\.json)),
        ])
        return DashboardPage(title: "Overview", html: html, json: json)
    }

    func batches(_ view: DashboardView) async throws -> DashboardPage {
        let batches = try await shared.value("batches:200") { [store] in try await store.batchStatus(limit: 200) }
        return DashboardPage(
            title: "Batches", html: batchTable(batches, view),
            json: .object(["batches": .array(batches.map { Self.batchJSON($0, now: Date()) })]))
    }

    private func batchTable(_ batches: [BatchStatusRow], _ view: DashboardView) -> String {
        let now = Date()
        return view.table(
            ["batch", "progress", "jobs", "queued", "running", "succeeded", "failed", "cancelled", "bytes", "rate", "ETA", "enqueued"],
            batches.map { batch in
                let pace = BatchPace(batch, now: now)
                return [view.batchLink(batch.batch),
                 DashboardView.bar(DashboardView.progress(batch)) + HTML.escape(batch.percent) + "%",
                 "\(batch.jobs)", "\(batch.queued)", "\(batch.running)", "\(batch.succeeded)",
                 batch.failed > 0 ? "<span class=\"s-failed\">\(batch.failed)</span>" : "0", "\(batch.cancelled)",
                 DashboardView.bytes(batch.bytesDone) + (batch.bytesTotal.map { " / " + DashboardView.bytes($0) } ?? "")
                    + (batch.sizesUnknown > 0 ? "+" : ""),
                 pace.rateText, pace.etaText, HTML.escape(batch.enqueuedAt.iso8601)]
            })
    }

    /// A batch's row with its pace, as the JSON of the pages that list batches.
    static func batchJSON(_ batch: BatchStatusRow, now: Date) -> JSONValue {
        guard case .object(var object) = batch.json else { return batch.json }
        object["pace"] = BatchPace(batch, now: now).json
        return .object(object)
    }

    func batch(_ name: String, state: String?, search: String?, after: UUID?, _ view: DashboardView) async throws -> DashboardPage? {
        guard let summary = try await shared.value("batch:" + name, { [store] in try await store.batchStatus(name) }).first else { return nil }
        let jobs = try await store.batchJobs(
            name, state: state, search: search, after: after, firstJob: summary.firstJobID, limit: Self.pageSize)
        let next = jobs.count == Self.pageSize ? jobs.last?.jobID : nil
        var html = batchTable([summary], view)
        html += view.actionButton("/batches/\(HTML.component(name))/cancel", "Cancel batch")
        html += view.actionButton("/batches/\(HTML.component(name))/retry", "Retry failed and cancelled")
        let states = ["", "queued", "running", "succeeded", "failed", "cancelled"]
        html += "<form method=\"get\">status <select name=\"status\">"
            + states.map { "<option\($0 == (state ?? "") ? " selected" : "") value=\"\($0)\">\($0.isEmpty ? "any" : $0)</option>" }.joined()
            + "</select> <input name=\"q\" placeholder=\"source or destination contains\" value=\"\(HTML.escape(search ?? ""))\"> <button>Filter</button></form>"
        html += view.table(
            ["job", "status", "attempt", "source", "destination", "progress", "last error"],
            jobs.map { job in
                [view.jobLink(job.jobID), view.status(job.status), "\(job.attempt)/\(job.maxAttempts)", HTML.escape(job.source),
                 HTML.escape(job.destination), HTML.escape(job.percent.map { $0 + "%" } ?? ""),
                 "<span class=\"err\">\(HTML.escape(job.lastError ?? ""))</span>"]
            })
        if let next {
            var query = "after=\(next.uuidString.lowercased())"
            if let state { query += "&status=\(HTML.component(state))" }
            if let search, !search.isEmpty { query += "&q=\(HTML.component(search))" }
            html += "<a id=\"next\" href=\"\(HTML.escape(base))/batches/\(HTML.component(name))?\(HTML.escape(query))\">next page →</a>"
        }
        let json: JSONValue = .object([
            "batch": Self.batchJSON(summary, now: Date()), "jobs": .array(jobs.map(\.json)),
            "next_after": next.map { .string($0.uuidString.lowercased()) } ?? .null,
        ])
        return DashboardPage(title: "Batch \(name)", html: html, json: json)
    }

    func job(_ id: UUID, _ view: DashboardView) async throws -> DashboardPage? {
        guard let job = try await store.jobStatus(.job(id)).first else { return nil }
        let events = try await store.events(of: id)
        var html = ""
        if job.state == "queued" || job.state == "running" { html += view.actionButton("/jobs/\(id.uuidString.lowercased())/cancel", "Cancel") }
        if job.state == "failed" || job.state == "cancelled" { html += view.actionButton("/jobs/\(id.uuidString.lowercased())/retry", "Retry") }
        let fields: [(String, String)]
        if case .object(let object) = job.json {
            fields = object.sorted { $0.key < $1.key }.map { key, value in
                (key, key == "batch" && job.batch != nil ? view.batchLink(job.batch!) : HTML.escape(Self.text(value)))
            }
        } else {
            fields = []
        }
        html += view.table(["field", "value"], fields.map { ["<b>\(HTML.escape($0.0))</b>", $0.1] })
        if let error = job.lastError { html += "<h3>Last error</h3><div class=\"err\">\(HTML.escape(error))</div>" }
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
                ["\(item.event.version)", HTML.escape(item.event.type), HTML.escape(item.event.recordedAt.iso8601),
                 HTML.escape(item.data["worker"]?.stringValue ?? ""), HTML.escape(item.data["lease"].map(Self.text) ?? ""),
                 "<pre>\(HTML.escape(item.event.data))</pre>"]
            })
        return DashboardPage(
            title: "Job \(id.uuidString.lowercased())", html: html,
            json: .object(["job": job.json, "resume_cursor": cursor, "events": .array(events.map(\.json))]))
    }

    func failed(_ view: DashboardView) async throws -> DashboardPage {
        let jobs = try await store.failedJobs(limit: 500)
        let accounts = try await shared.value("accounts") { [store] in try await store.accountStatus() }.filter(\.needsLogin)
        let held = try await store.heldJobs(accounts: accounts.map(\.name), limit: 200)
        // Grouped by error, groups in order of their newest failure.
        var order = [String]()
        var groups = [String: [JobStatusRow]]()
        for job in jobs {
            let key = job.lastError ?? "(no error recorded)"
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(job)
        }
        var html = "<h3>Accounts that need <code>ferry account login</code></h3>"
        html += accounts.isEmpty
            ? "<p id=\"no-held\">None: no job is held.</p>"
            : view.table(
                ["account", "provider", "status", "reason", "since", "held jobs"],
                accounts.map { account in
                    [HTML.escape(account.name), HTML.escape(account.provider), view.status(account.status),
                     HTML.escape(account.statusReason ?? ""), HTML.escape(account.updatedAt.iso8601), "\(account.heldJobs ?? 0)"]
                })
        if !held.isEmpty {
            html += "<h3>Held jobs</h3>"
            html += view.table(
                ["job", "account", "batch", "source", "destination", "enqueued"],
                held.map { job in
                    [view.jobLink(job.jobID), HTML.escape(job.account ?? ""), job.batch.map { view.batchLink($0) } ?? "",
                     HTML.escape(job.source), HTML.escape(job.destination), HTML.escape(job.enqueuedAt.iso8601)]
                })
        }
        html += "<h3>Failed</h3>"
        html += jobs.isEmpty ? "<p>No failed jobs.</p>" : ""
        for key in order {
            let members = groups[key]!
            html += "<h3 class=\"err\">\(HTML.escape(key)) (\(members.count))</h3>"
            html += view.table(
                ["job", "batch", "source", "destination", "finished", ""],
                members.map { job in
                    [view.jobLink(job.jobID), job.batch.map { view.batchLink($0) } ?? "", HTML.escape(job.source),
                     HTML.escape(job.destination), HTML.escape(job.finishedAt?.iso8601 ?? ""),
                     view.actionButton("/jobs/\(job.jobID.uuidString.lowercased())/retry", "Retry")]
                })
        }
        let json: JSONValue = .object([
            "groups": .array(order.map { key in
                .object(["error": .string(key), "jobs": .array(groups[key]!.map(\.json))])
            }),
            "accounts_needing_login": .array(accounts.map(\.json)),
            "held": .array(held.map(\.json)),
        ])
        return DashboardPage(title: "Failed and held", html: html, json: json)
    }

    func workers(_ view: DashboardView) async throws -> DashboardPage {
        let workers = try await shared.value("workers") { [store] in try await store.workerStatus() }
        let html = view.table(
            ["name", "host", "pid", "queues", "heartbeat", "running", "slots", ""],
            workers.map { worker in
                [HTML.escape(worker.name), HTML.escape(worker.host), "\(worker.pid)", HTML.escape(worker.queues.joined(separator: ", ")),
                 DashboardView.age(worker.heartbeatAgeSeconds) + " ago", "\(worker.running)", "\(worker.concurrency)",
                 worker.stopping ? "stopping" : (worker.heartbeatAgeSeconds >= Self.aliveAfterSeconds ? "silent" : "")]
            })
        return DashboardPage(title: "Workers", html: html, json: .object(["workers": .array(workers.map(\.json))]))
    }

    static func text(_ value: JSONValue) -> String {
        switch value {
        case .null: ""
        case .string(let text): text
        default: value.jsonText
        }
    }
}
