/// What an archive file must hold for a restore to go ahead: the facts the archiver recorded in
/// `ferry.archives` (or, for a foreign archive, what its manifest claims). The restore compares them with what
/// it actually reads, inside its transaction, and writes nothing when one differs.
public struct ArchiveExpectation: Sendable, Equatable {
    /// Where the facts come from.
    public enum Source: String, Sendable, CustomStringConvertible {
        /// The archiver's row in this database's `ferry.archives`.
        case record
        /// The file's manifest (a foreign archive, restored with `--foreign`).
        case manifest

        public var description: String {
            switch self {
            case .record: "this database's record"
            case .manifest: "its manifest"
            }
        }
    }

    public var source: Source
    /// SHA-256 of the compressed file, lowercase hex.
    public var sha256: String
    /// Size of the compressed file in bytes.
    public var bytes: Int
    /// Job lines in the file.
    public var jobs: Int
    /// Events over all job lines.
    public var events: Int
    /// Lowest and highest event position (`nil`: not known, not checked).
    public var firstPosition: Int?
    public var lastPosition: Int?

    public init(source: Source, sha256: String, bytes: Int, jobs: Int, events: Int, firstPosition: Int?, lastPosition: Int?) {
        self.source = source
        self.sha256 = sha256
        self.bytes = bytes
        self.jobs = jobs
        self.events = events
        self.firstPosition = firstPosition
        self.lastPosition = lastPosition
    }

    /// What the archiver recorded for `record`.
    public init(record: ArchiveRecord) {
        self.init(
            source: .record, sha256: record.sha256, bytes: record.bytes, jobs: record.jobs, events: record.events,
            firstPosition: record.firstPosition, lastPosition: record.lastPosition)
    }
}
