import FerryCore
import FerryStore
import Foundation
import Hummingbird
import Postgres

extension Dashboard {
    /// Schedules: each schedule's recurrence, zone, state, next tick and its last run's job and state, with Run now,
    /// Pause and Resume buttons (`ferry schedule run|pause|resume`: one event in `ferry.schedule_events`).
    func schedules(_ view: DashboardView) async throws -> DashboardPage {
        let schedules = try await shared.value("schedules") { [store] in try await store.schedules.all() }
        let now = Date()
        var html = schedules.isEmpty
            ? "<p>No schedules: add one with <code>ferry schedule add NAME --every 1d -- upload DIR --recursive --to DEST/</code>.</p>" : ""
        html += view.table(
            ["schedule", "when", "zone", "state", "next tick", "job", "last run", "last job", ""],
            schedules.map { schedule in
                let path = "/schedules/\(HTML.component(schedule.name))"
                let template = schedule.template
                let job = [template["kind"]?.stringValue, template["source"]?.stringValue, "→", template["to"]?.stringValue]
                    .compactMap { $0 }.joined(separator: " ")
                return ["<a href=\"\(HTML.escape(base))\(path)\">\(HTML.escape(schedule.name))</a>", HTML.escape(schedule.spec), HTML.escape(schedule.timezone),
                        view.status(schedule.paused ? "paused" : "active") + (schedule.runRequestedAt == nil ? "" : " " + view.status("run requested"))
                            + (schedule.pausedReason.map { "<br><small>" + HTML.escape($0) + "</small>" } ?? ""),
                        schedule.paused ? "" : DashboardView.time(schedule.nextTick.map({ PostgresTimestamp($0) }), now: now),
                        HTML.escape(job), DashboardView.time(schedule.lastFiredAt.map({ PostgresTimestamp($0) }), now: now),
                        schedule.lastJobID.map { view.jobLink($0) + " " + view.status(schedule.lastJobState ?? "") } ?? "",
                        view.actionButton(path + "/run", "Run now") + " "
                            + view.actionButton(path + (schedule.paused ? "/resume" : "/pause"), schedule.paused ? "Resume" : "Pause")]
            }, rowIDs: schedules.map { "schedule-" + $0.name }, stack: true)
        return DashboardPage(title: "Schedules", html: html, json: .object(["schedules": .array(schedules.map(\.json))]))
    }

    /// Pauses or resumes a schedule, as `ferry schedule pause|resume` does (a resumed schedule fires from its next
    /// tick after now), or asks for a run now as `ferry schedule run --no-wait` does (a worker fires it).
    func scheduleAction(_ request: Request, _ context: DashboardRequestContext, name: String, action: String) async throws -> Response {
        guard ["pause", "resume", "run"].contains(action) else { return problem(request, .notFound, "unknown action \(action)") }
        let (refusal, _) = try await authorize(request, context, action: action)
        if let refusal { return refusal }
        let changed: Bool
        var requestedAt: Date?
        do {
            if action == "run" {
                requestedAt = try await store.schedules.requestRun(name)
                changed = true
            } else {
                changed = try await store.schedules.setPaused(name, paused: action == "pause", now: Date())
            }
        } catch let error as FerryStoreError where error.code == .notFound {
            return problem(request, .notFound, "no schedule '\(name)'")
        } catch {
            logger.warning("dashboard action failed", metadata: ["action": "\(action)", "error": "\(error)"])
            return problem(request, .serviceUnavailable, "the database did not answer: \(Self.safe(error))")
        }
        shared.clear()
        logger.notice("dashboard action", metadata: ["action": "\(action)", "schedule": "\(name)", "changed": "\(changed)"])
        if wantsJSON(request) {
            let json: JSONValue = if let requestedAt {
                .object(["schedule": .string(name), "run_requested_at": .string(ScheduleTime.iso8601(requestedAt))])
            } else {
                .object(["schedule": .string(name), "paused": .bool(action == "pause"), "changed": .bool(changed)])
            }
            return Self.body(.ok, "application/json", json.jsonText + "\n")
        }
        return Response(status: .seeOther, headers: [.location: base + "/schedules"])
    }
}
