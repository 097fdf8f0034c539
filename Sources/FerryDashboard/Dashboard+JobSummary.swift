import FerryStore
import Foundation

extension Dashboard {
    /// The top of a job's page: what an operator looks for first (status, progress, the error and its fix, where
    /// from and to, which worker, which attempt, when), above the full table of fields.
    func jobSummary(_ job: JobStatusRow, _ view: DashboardView, now: Date = Date()) -> String {
        var items: [(String, String)] = [("status", view.status(job.status))]
        let fraction: Double? =
            job.state == "succeeded" ? 1 : job.percent.flatMap(Double.init).map { $0 / 100 }
        let size = job.bytesTotal.map { DashboardView.bytes(job.bytesDone) + " of " + DashboardView.bytes($0) }
            ?? (job.bytesDone > 0 ? DashboardView.bytes(job.bytesDone) : "size unknown")
        items.append(("progress", (fraction.map { DashboardView.jobProgressBar($0, state: job.state) + " " } ?? "") + HTML.escape(size)))
        if let error = job.lastError {
            let signature = FailureSignature(error: error)
            let fix = fixes.text(code: signature.code, exhausted: error.contains("attempts exhausted"))
            let label = job.state == "failed" ? "error" : "last error"
            items.append((label, "<div class=\"err\" id=\"job-error\">\(HTML.escape(error))</div><div class=\"fix\" id=\"job-fix\">fix: \(HTML.escape(fix))</div>"))
        }
        items.append(("from → to", HTML.escape(job.source) + " → " + HTML.escape(job.destination)))
        if let worker = job.worker { items.append(("worker", HTML.escape(worker))) }
        items.append(("attempt", "\(job.attempt) of \(job.maxAttempts)"))
        if let batch = job.batch { items.append(("batch", view.batchLink(batch))) }
        items.append(("enqueued", DashboardView.time(job.enqueuedAt, now: now)))
        if let started = job.startedAt { items.append(("started", DashboardView.time(started, now: now))) }
        if let finished = job.finishedAt { items.append(("finished", DashboardView.time(finished, now: now))) }
        else if job.state == "queued", job.runAt.date > now { items.append(("runs", DashboardView.time(job.runAt, now: now))) }
        return "<dl class=\"summary\" id=\"summary\">" + items.map { "<dt>\(HTML.escape($0.0))</dt><dd>\($0.1)</dd>" }.joined() + "</dl>"
    }
}
