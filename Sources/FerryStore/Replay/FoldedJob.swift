import FerryCore

/// A `ferry.jobs` row as the fold builds it. Values the fold computes are typed; values it copies from events are
/// slices of the chunk's ``ReplayArena`` in COPY text form, so they compare with the stored row byte for byte.
struct FoldedJob {
    var jobID: ReplayText
    var version: Int64
    var kind: ReplayText
    var queue: ReplayText
    var batch: ReplayText
    var priority: Int64
    var state: JobState
    var attempt: Int64
    var maxAttempts: Int64
    var lease: Int64
    var worker: ReplayText
    var account: ReplayText
    var source: ReplayText
    var destination: ReplayText
    var idempotencyKey: ReplayText
    var spec: ReplayText
    var metadata: ReplayText
    var runAt: ReplayText
    var cancelRequested: Bool
    var bytesDone: Int64
    var bytesTotal: Int64?
    var session: ReplayText
    var lastError: ReplayText
    var result: ReplayText
    var enqueuedAt: ReplayText
    var startedAt: ReplayText
    var finishedAt: ReplayText
    var updatedAt: ReplayText
}
