import FerryCore
import FerryTestSupport
import Testing

/// Which events a job accepts in each state is defined once in SQL (`ferry.apply_event`) and once in Swift
/// (`JobFold` in FerryStore); FerryStoreTests' JobFoldPropertyTests proves they agree.
@Suite("job event types", .tags(.fast))
struct JobEventTypeTests {
    @Test("events that need the claim's lease")
    func leaseRequirements() {
        #expect(JobEventType.progress.requiresLease)
        #expect(JobEventType.succeeded.requiresLease)
        #expect(!JobEventType.cancelRequested.requiresLease)
        #expect(!JobEventType.enqueued.requiresLease)
        #expect(!JobEventType.discarded.requiresLease)
    }

    @Test("terminal states")
    func terminalStates() {
        #expect(JobState.allCases.filter(\.isTerminal) == [.succeeded, .failed, .cancelled, .discarded])
    }
}
