import FerryCore
import FerryStore
import Foundation

extension Dashboard {
    /// Failures grouped by: the newest this many failed jobs (a bounded walk of jobs_finished_idx), so the page
    /// costs the same for 10 failures as for a million.
    static let failureSampleSize = 10_000

    /// Failed & held: accounts that need a login with the jobs they hold, then failed jobs grouped by error code
    /// and normalized message, each group with its count, a sample job, its fix and Retry group / Discard group.
    func failed(_ view: DashboardView) async throws -> DashboardPage {
        let sample = try await store.reads.failureSample(limit: Self.failureSampleSize)
        let groups = FailureGroup.groups(sample)
        let accounts = try await shared.value("accounts") { [store] in try await store.reads.accountStatus() }.filter(\.needsLogin)
        let held = try await store.reads.heldJobs(accounts: accounts.map(\.name), limit: 200)
        let heldReasons = try await store.reads.heldReasons(held.map(\.jobID))
        let now = Date()
        var html = "<h3>Accounts that need <code>ferry account login</code></h3>"
        html += accounts.isEmpty
            ? "<p id=\"no-held\">None: no job is held.</p>"
            : view.table(
                ["account", "provider", "status", "reason", "since", "held jobs"],
                accounts.map { account in
                    [HTML.escape(account.name), HTML.escape(account.provider), view.status(account.status),
                     HTML.escape(account.statusReason ?? ""), DashboardView.time(account.updatedAt, now: now), "\(account.heldJobs ?? 0)"]
                })
        if !held.isEmpty {
            html += "<h3>Held jobs</h3>"
            html += view.table(
                ["job", "account", "batch", "source", "destination", "enqueued", "fix"],
                held.map { job in
                    [view.jobLink(job.jobID), HTML.escape(job.account ?? ""), job.batch.map { view.batchLink($0) } ?? "",
                     HTML.escape(job.source), HTML.escape(job.destination), DashboardView.time(job.enqueuedAt, now: now),
                     "<div class=\"fix\">\(HTML.escape(heldFix(heldReasons[job.jobID])))</div>"]
                })
        }
        html += "<h3>Failed, grouped by error</h3>"
        if sample.isEmpty { html += "<p>No failed jobs.</p>" }
        if sample.count == Self.failureSampleSize {
            html += "<p id=\"sample-note\">Grouping the newest \(Self.failureSampleSize) failures; older ones join their group as these are retried.</p>"
        }
        html += view.table(
            ["error", "jobs", "sample job", "last failed", ""],
            groups.map { group in
                let sample = group.jobs[0]
                let exhausted = group.signature.message.contains("attempts exhausted")
                return ["<div class=\"err\">\(HTML.escape(group.signature.text))</div><div class=\"fix\">fix: "
                        + HTML.escape(fixes.text(code: group.signature.code, exhausted: exhausted)) + "</div>",
                        "<b class=\"group-count\">\(group.count)</b>",
                        view.jobLink(sample.jobID) + "<div class=\"err\">\(HTML.escape(sample.lastError ?? ""))</div>",
                        DashboardView.time(sample.finishedAt, now: now),
                        view.actionButton("/failed/groups/\(group.signature.id)/retry", "Retry group")
                            + " " + view.actionButton("/failed/groups/\(group.signature.id)/discard", "Discard group")
                            + " " + view.retryWithOptions("/failed/groups/\(group.signature.id)/retry")]
            }, rowIDs: groups.map { "group-" + $0.signature.id }, stack: true)
        if !groups.isEmpty {
            html += view.bulkForm(id: "bulk-failed", fields: "", actions: [("retry", "Retry"), ("discard", "Discard")], filter: nil)
        }
        for group in groups {
            html += "<details id=\"jobs-\(group.signature.id)\"><summary>\(HTML.escape(group.signature.text)): "
                + "\(group.count) job\(group.count == 1 ? "" : "s")\(group.count > group.jobs.count ? ", newest \(group.jobs.count) shown" : "")</summary>"
            html += view.table(
                (!view.canAct ? [] : [""]) + ["job", "batch", "source", "destination", "failed", ""],
                group.jobs.map { job in
                    (!view.canAct ? [] : [view.selectBox(job.jobID, form: "bulk-failed")]) + [view.jobLink(job.jobID), job.batch.map { view.batchLink($0) } ?? "", HTML.escape(job.source),
                     HTML.escape(job.destination), DashboardView.time(job.finishedAt, now: now),
                     view.actionButton("/jobs/\(job.jobID.uuidString.lowercased())/retry", "Retry")
                        + " " + view.actionButton("/jobs/\(job.jobID.uuidString.lowercased())/discard", "Discard")]
                }, stack: true)
            html += "</details>"
        }
        let json: JSONValue = .object([
            "groups": .array(groups.map { $0.json(fixes: fixes) }),
            "sampled": .int(Int64(sample.count)), "sample_limit": .int(Int64(Self.failureSampleSize)),
            "accounts_needing_login": .array(accounts.map(\.json)),
            "held": .array(held.map { job in
                guard case .object(var fields) = job.json else { return job.json }
                fields["fix"] = .string(heldFix(heldReasons[job.jobID]))
                return .object(fields)
            }),
        ])
        return DashboardPage(title: "Failed and held", html: html, json: json)
    }

    /// The failed jobs of the group `id` among the newest `failureSampleSize` failures (read again at the time
    /// of the action, so the group is what it is now); nil when no such group is left.
    func failureGroup(_ id: String) async throws -> FailureGroup? {
        FailureGroup.groups(try await store.reads.failureSample(limit: Self.failureSampleSize)).first { $0.signature.id == id }
    }
}
