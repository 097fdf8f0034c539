import FerryCore
import FerryStore
import Testing

/// The state machine the replay and the in-memory store share. `JobFoldPropertyTests` holds it to
/// `ferry.apply_event` on random histories; these cases name the rules a change must not lose.
@Suite("job transitions", .tags(.fast))
struct JobTransitionTests {
    static func of(_ type: JobEventType, _ state: JobState, lease: Int64 = 3, carried: Int64? = 3, cancelRequested: Bool = false) throws(JobFoldError) -> JobTransition {
        try JobTransition.of(type, from: state, lease: lease, cancelRequested: cancelRequested, eventLease: carried)
    }

    @Test("a worker's event with a stale or missing lease, or on a job not running, is refused with FY001", arguments: [
        JobEventType.progress, .retryScheduled, .deferred, .released, .rescued, .succeeded, .failed, .resolved,
    ])
    func staleLease(_ type: JobEventType) {
        for carried in [Int64(2), 4, nil] {
            #expect(throws: JobFoldError(.staleLease, "\(type.rawValue) carries lease \(carried.map { String($0) } ?? "none"), but the current lease is 3")) {
                try Self.of(type, .running, carried: carried)
            }
        }
        for state in [JobState.queued, .succeeded, .failed, .cancelled, .discarded] {
            #expect(throws: JobFoldError(.staleLease, "\(type.rawValue) is not allowed while the job is \(state.rawValue)")) {
                try Self.of(type, state)
            }
        }
    }

    @Test("a claim takes a queued job with the next lease only; it starts the next attempt")
    func claim() throws {
        let claim = try Self.of(.claimed, .queued, carried: 4)
        #expect(claim.state == .running && claim.attempt == .next && claim.claims)
        #expect(throws: JobFoldError(.staleLease, "claim must carry lease 4")) { try Self.of(.claimed, .queued, carried: 3) }
        #expect(throws: JobFoldError(.transitionNotAllowed, "cannot be claimed while running")) { try Self.of(.claimed, .running, carried: 4) }
    }

    @Test("deferred and released hand the attempt back; a retry and a rescue use it")
    func attempts() throws {
        #expect(try Self.of(.deferred, .running).attempt == .giveBack)
        #expect(try Self.of(.released, .running).attempt == .giveBack)
        #expect(try Self.of(.retryScheduled, .running).attempt == .keep)
        #expect(try Self.of(.rescued, .running).attempt == .keep)
        #expect(try Self.of(.released, .running).lastError == .keep, "a release keeps the last error")
        #expect(try Self.of(.succeeded, .running).lastError == .clear, "a success clears an earlier attempt's error")
    }

    @Test("a cancel requested while running wins where the job would wait again; a retry by hand clears it")
    func cancelWins() throws {
        for type in [JobEventType.deferred, .retryScheduled, .released, .rescued] {
            let transition = try Self.of(type, .running, cancelRequested: true)
            #expect(transition.state == .cancelled && transition.finishedAt == .now, "\(type)")
        }
        #expect(try Self.of(.progress, .running, cancelRequested: true).state == .running)
        let retried = try Self.of(.requeued, .cancelled, carried: nil, cancelRequested: true)
        #expect(retried.state == .queued && retried.cancelRequested == false && retried.attempt == .reset)
    }

    @Test("control events keep their states: cancel from queued or running (current lease), discard from failed, retry from an end")
    func control() throws {
        #expect(try Self.of(.cancelled, .queued, carried: nil).state == .cancelled)
        #expect(throws: JobFoldError(.staleLease, "cancelled carries a stale lease")) { try Self.of(.cancelled, .running, carried: 2) }
        #expect(throws: JobFoldError(.transitionNotAllowed, "cannot be cancelled while succeeded")) { try Self.of(.cancelled, .succeeded) }
        #expect(throws: JobFoldError(.transitionNotAllowed, "cancel can only be requested while running, not queued")) {
            try Self.of(.cancelRequested, .queued)
        }
        #expect(try Self.of(.discarded, .failed).state == .discarded)
        #expect(throws: JobFoldError(.transitionNotAllowed, "only failed jobs can be discarded, this one is cancelled")) {
            try Self.of(.discarded, .cancelled)
        }
        #expect(throws: JobFoldError(.transitionNotAllowed, "only failed, cancelled or discarded jobs can be retried, this one is succeeded")) {
            try Self.of(.requeued, .succeeded)
        }
        #expect(throws: JobFoldError(.transitionNotAllowed, "job already exists")) { try Self.of(.enqueued, .queued) }
    }

    @Test("the lease is read for a running job and for a claim of a queued one, nowhere else (where apply_event casts it)")
    func leaseRead() {
        for type in JobEventType.allCases {
            #expect(JobTransition.readsLease(type, from: .running), "\(type)")
            for state in [JobState.succeeded, .failed, .cancelled, .discarded] {
                #expect(!JobTransition.readsLease(type, from: state), "\(type) from \(state)")
            }
            #expect(JobTransition.readsLease(type, from: .queued) == (type == .claimed), "\(type)")
        }
    }
}
