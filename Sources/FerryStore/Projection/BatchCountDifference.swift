/// A batch figure whose maintained counter disagrees with the projection (found by `projection verify`).
public struct BatchCountDifference: Sendable, Equatable {
    public var batch: String
    /// The figure: `jobs`, a state (`queued` … `cancelled`, `discarded`), `bytes_done`, `bytes_total` or `sized`.
    public var field: String
    /// What `ferry.batch_status` is built from.
    public var counted: Int64
    /// What the jobs in `ferry.jobs` add up to.
    public var actual: Int64

    public init(batch: String, field: String, counted: Int64, actual: Int64) {
        self.batch = batch
        self.field = field
        self.counted = counted
        self.actual = actual
    }
}
