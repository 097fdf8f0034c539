import FerryCore

/// One job of a replay chunk: its folded row, or the event the fold refused.
struct ReplayedJob {
    /// An event the fold refused; the job's later events are not folded.
    struct Refusal {
        var version: Int64
        var type: String
        var error: JobFoldError
    }

    var jobID: ReplayText
    /// `nil` until an `enqueued` event is folded (or when it was refused).
    var row: FoldedJob?
    var refusal: Refusal?
    /// Events read for the job in this chunk.
    var events = 0
}
