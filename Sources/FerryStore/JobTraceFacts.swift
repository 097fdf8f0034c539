import FerryCore
import Foundation

/// What the event log knows about a claimed job's trace: the `traceparent` recorded at enqueue, and the attempt
/// before this claim if its worker died (it was rescued) and so never reported its own span.
public struct JobTraceFacts: Sendable, Hashable {
    /// From the `enqueued` event; nil when the producer gave none.
    public var traceparent: TraceParent?
    /// The previous attempt, when it ended by rescue (its worker stopped heartbeating: `kill -9`, a lost machine).
    public var lostAttempt: LostAttempt?

    /// Facts as read by `FerryStore.traceFacts(for:)`.
    public init(traceparent: TraceParent?, lostAttempt: LostAttempt?) {
        self.traceparent = traceparent
        self.lostAttempt = lostAttempt
    }

    /// An attempt whose worker died, as the event log records it.
    public struct LostAttempt: Sendable, Hashable {
        public var attempt: Int
        /// The worker that held the claim.
        public var worker: String?
        /// The `claimed` event's time.
        public var claimedAt: Date
        /// The `rescued` event's time.
        public var rescuedAt: Date
        /// The dead worker's attempt span id, from its progress events (absent if it wrote none with tracing on).
        public var spanID: String?
        /// Bytes the dead attempt had reported done.
        public var bytesDone: Int64?

        /// The lost attempt as its events record it.
        public init(attempt: Int, worker: String?, claimedAt: Date, rescuedAt: Date, spanID: String?, bytesDone: Int64?) {
            self.attempt = attempt
            self.worker = worker
            self.claimedAt = claimedAt
            self.rescuedAt = rescuedAt
            self.spanID = spanID
            self.bytesDone = bytesDone
        }
    }
}
