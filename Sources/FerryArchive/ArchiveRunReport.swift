/// What one `ferry archive` run did.
public struct ArchiveRunReport: Sendable {
    /// Archives written (and committed) by this run.
    public var written: [ArchivedChunkSummary] = []
    /// Archives of an earlier, interrupted run that this run finished (renamed, manifest written).
    public var recovered: [String] = []
    /// Leftover `.partial` files of runs that died before committing; their jobs were still in the log.
    public var discarded: [String] = []

    public var jobs: Int { written.reduce(0) { $0 + $1.jobs } }
    public var events: Int { written.reduce(0) { $0 + $1.events } }
}

/// One archive file written by a run.
public struct ArchivedChunkSummary: Sendable {
    public var file: String
    public var jobs: Int
    public var events: Int
    public var bytes: Int
    public var sha256: String
}
