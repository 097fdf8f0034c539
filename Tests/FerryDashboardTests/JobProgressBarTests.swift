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
}
