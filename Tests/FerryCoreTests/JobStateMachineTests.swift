import FerryCore
import Testing

@Suite("job state machine")
struct JobStateMachineTests {
    @Test("a job's normal life")
    func happyPath() {
        var state = JobStateMachine.next(from: nil, on: .enqueued)
        #expect(state == .queued)
        state = JobStateMachine.next(from: state, on: .claimed)
        #expect(state == .running)
        state = JobStateMachine.next(from: state, on: .progress)
        #expect(state == .running)
        state = JobStateMachine.next(from: state, on: .succeeded)
        #expect(state == .succeeded)
        #expect(state?.isTerminal == true)
    }

    @Test("terminal states accept only requeued (and succeeded accepts nothing)")
    func terminalStates() {
        for event in JobEventType.allCases {
            let expectedFromFailed: JobState? = event == .requeued ? .queued : nil
            #expect(JobStateMachine.next(from: .failed, on: event) == expectedFromFailed)
            #expect(JobStateMachine.next(from: .cancelled, on: event) == expectedFromFailed)
            #expect(JobStateMachine.next(from: .succeeded, on: event) == nil)
        }
    }

    @Test("a pending cancel wins when the job would wait again")
    func cancelRequestedWins() {
        #expect(JobStateMachine.next(from: .running, on: .retryScheduled, cancelRequested: true) == .cancelled)
        #expect(JobStateMachine.next(from: .running, on: .released, cancelRequested: true) == .cancelled)
        #expect(JobStateMachine.next(from: .running, on: .succeeded, cancelRequested: true) == .succeeded)
    }

    @Test("events that need the claim's lease")
    func leaseRequirements() {
        #expect(JobEventType.progress.requiresLease)
        #expect(JobEventType.succeeded.requiresLease)
        #expect(!JobEventType.cancelRequested.requiresLease)
        #expect(!JobEventType.enqueued.requiresLease)
    }
}
