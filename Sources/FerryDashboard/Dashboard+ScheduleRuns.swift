import FerryCore
import FerryStore
import Foundation
import Postgres

extension Dashboard {
    /// One row per schedule for the lists of batches: its runs counted by outcome and its newest run, each
    /// schedule's own page holding the history (a schedule firing every minute makes a batch per tick).
    func scheduleRunTable(_ groups: [ScheduleRunGroup], _ view: DashboardView) -> String {
        guard !groups.isEmpty else { return "" }
        let now = Date()
        let b = HTML.escape(base)
        return "<h4>Schedules' runs</h4>" + view.table(
            ["schedule", "runs", "going", "succeeded", "with failures", "jobs", "bytes", "last run", ""],
            groups.map { group in
                ["<a href=\"\(b)/schedules/\(HTML.component(group.schedule))\">\(HTML.escape(group.schedule))</a>",
                 "\(group.runs)", "\(group.going)", "\(group.succeededRuns)",
                 group.unsuccessfulRuns > 0 ? "<span class=\"s-failed\">\(group.unsuccessfulRuns)</span>" : "0",
                 "\(group.jobs)", DashboardView.bytes(group.bytesDone), DashboardView.time(group.lastRunAt, now: now),
                 view.batchLink(group.lastBatch)]
            }, rowIDs: groups.map { "runs-" + $0.schedule })
    }

    /// One schedule: what it runs and when, and its newest runs with each run's outcome counts (the run's batch).
    func schedule(_ name: String, _ view: DashboardView) async throws -> DashboardPage? {
        let record: ScheduleRecord
        let runs: [ScheduleRun]
        do {
            (record, runs) = try await store.schedules.named(name, runs: Self.scheduleHistory)
        } catch let error as FerryStoreError where error.code == .notFound {
            return nil
        }
        // Each run is the batch named by its tick, unless the template names one batch for every run.
        let sharedBatch = record.template["batch"]?.stringValue
        let names = runs.map { sharedBatch ?? ScheduleStore.scheduleKey(name, tick: $0.tickAt) }
        let batches = sharedBatch == nil ? try await store.reads.batchStatus(named: names) : [:]
        let now = Date()
        var outcome = (succeeded: 0, unsuccessful: 0, going: 0, skipped: 0, failedToFire: 0)
        let rows = zip(runs, names).map { run, batchName -> [String] in
            let batch = batches[batchName]
            if run.skippedFor != nil { outcome.skipped += 1 } else if run.error != nil { outcome.failedToFire += 1 }
            if let batch {
                if !batch.done { outcome.going += 1 } else if batch.failed + batch.cancelled + batch.discarded > 0 { outcome.unsuccessful += 1 } else { outcome.succeeded += 1 }
            }
            let progress = batch.map { DashboardView.progress($0) }
            return [DashboardView.time(PostgresTimestamp(run.tickAt), now: now) + (run.manual ? " " + view.status("manual") : ""),
                    run.jobID.map { view.jobLink($0) + " " + view.status(run.jobState ?? "archived") } ?? "",
                    batch.map { _ in view.batchLink(batchName) } ?? "",
                    progress.map { DashboardView.progressBar($0.done, failed: $0.failed) } ?? "",
                    batch.map { "\($0.jobs)" } ?? "", batch.map { "\($0.succeeded)" } ?? "",
                    batch.map { $0.failed > 0 ? "<span class=\"s-failed\">\($0.failed)</span>" : "0" } ?? "",
                    batch.map { "\($0.cancelled + $0.discarded)" } ?? "",
                    HTML.escape(run.error ?? run.skippedFor.map { "skipped: run \($0.uuidString.lowercased().prefix(8)) still going" } ?? "")
                        + (run.missed > 0 ? " (\(run.missed) missed before)" : "")]
        }
        var html = "<p>\(HTML.escape(record.spec)) (\(HTML.escape(record.timezone))), "
            + view.status(record.paused ? "paused" : "active")
            + (record.nextTick.map { ", next " + DashboardView.time(PostgresTimestamp($0), now: now) } ?? "") + "</p>"
        html += "<p id=\"run-outcomes\">Last \(runs.count) runs: \(outcome.succeeded) succeeded, \(outcome.unsuccessful) with failures, "
            + "\(outcome.going) going, \(outcome.skipped) skipped, \(outcome.failedToFire) not fired</p>"
        html += view.table(["tick", "job", "batch", "progress", "jobs", "succeeded", "failed", "cancelled", "note"], rows,
                           rowIDs: runs.map { "run-" + ScheduleTime.iso8601($0.tickAt) })
        let json: JSONValue = .object([
            "schedule": record.json,
            "outcomes": .object([
                "succeeded": .int(Int64(outcome.succeeded)), "unsuccessful": .int(Int64(outcome.unsuccessful)),
                "going": .int(Int64(outcome.going)), "skipped": .int(Int64(outcome.skipped)), "not_fired": .int(Int64(outcome.failedToFire)),
            ]),
            "runs": .array(zip(runs, names).map { run, batchName in
                guard case .object(var object) = run.json else { return run.json }
                object["batch"] = batches[batchName].map { Self.batchJSON($0, now: now) } ?? .null
                return .object(object)
            }),
        ])
        return DashboardPage(title: "Schedule \(name)", html: html, json: json)
    }

    /// Runs a schedule's page lists.
    static let scheduleHistory = 50
}
