import Synchronization

/// One claim at a time per worker: the claim loop and the outcome batcher's hand-over (a claim in the transaction
/// of outcomes that freed account slots) both count the free slots and claim that many, so they take turns, and
/// neither claims once the worker drains.
final class ClaimGate: Sendable {
    private struct State {
        var claiming = false
        var closed = false
        /// Someone was turned away during the current turn.
        var missed = false
    }

    private let state = Mutex(State())

    /// Takes the turn; false while another claim runs or after ``close()``.
    func begin() -> Bool {
        state.withLock { state in
            guard !state.claiming, !state.closed else {
                state.missed = state.claiming
                return false
            }
            state.claiming = true
            return true
        }
    }

    /// Gives the turn back; true when someone was turned away meanwhile (and should be woken to try again).
    @discardableResult
    func end() -> Bool {
        state.withLock { state in
            defer { (state.claiming, state.missed) = (false, false) }
            return state.missed
        }
    }

    /// No claim begins after this (graceful shutdown).
    func close() { state.withLock { $0.closed = true } }
}
