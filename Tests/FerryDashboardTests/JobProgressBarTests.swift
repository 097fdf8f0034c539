import FerryTestSupport
@testable import FerryDashboard
import Testing

/// A job's progress bar says how it ended: red for a job that ended without success, however far it got.
@Suite("dashboard job progress bar", .tags(.fast))
struct JobProgressBarTests {
    @Test("a failed, cancelled or discarded job's bar is red; a running or succeeded one's is not")
    func endedBarsAreRed() {
        for state in ["failed", "cancelled", "discarded"] {
            let bar = DashboardView.jobProgressBar(0.999, state: state)
            #expect(bar.contains("class=\"failed\"") && !bar.contains("class=\"ok\" width=\"99"), "\(state): \(bar)")
        }
        for state in ["running", "queued", "succeeded"] {
            #expect(!DashboardView.jobProgressBar(0.5, state: state).contains("class=\"failed\""), "\(state)")
        }
    }

    @Test("a finished batch with failures says how much succeeded, never 100 %; a running one how far it got")
    func neverHundredWithFailures() {
        let half = DashboardView.progressBar(0.5, failed: 0.5)
        #expect(half.contains("<span class=\"pct\">50.0% ok</span>") && !half.contains("100.0%"), "\(half)")
        #expect(DashboardView.progressBar(0.286, failed: 0.143).contains("<span class=\"pct\">42.9%</span>"))
        #expect(DashboardView.progressBar(1).contains("<span class=\"pct\">100.0%</span>"))
        #expect(DashboardView.progressBar(0, failed: 1).contains("<span class=\"pct\">0.0% ok</span>"))
        let job = DashboardView.jobProgressBar(1, state: "failed")
        #expect(job.contains("<span class=\"pct\">failed</span>") && !job.contains("100.0%"), "\(job)")
    }
}
