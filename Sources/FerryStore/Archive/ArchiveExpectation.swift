/// What an archive file must hold for a restore to go ahead: the facts the archiver recorded in
/// `ferry.archives` (or, for a foreign archive, what its manifest claims). The restore compares them with what
/// it actually reads, inside its transaction, and writes nothing when one differs.
public struct ArchiveExpectation: ArchiveFactsCarrier, Sendable, Equatable {
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
    /// What the file must hold (read as `expected.sha256` and so on).
    public var facts: ArchiveFacts

    public init(source: Source, facts: ArchiveFacts) {
        self.source = source
        self.facts = facts
    }

    public init(source: Source, sha256: String, bytes: Int, jobs: Int, events: Int, firstPosition: Int?, lastPosition: Int?) {
        self.init(
            source: source,
            facts: ArchiveFacts(sha256: sha256, bytes: bytes, jobs: jobs, events: events, firstPosition: firstPosition, lastPosition: lastPosition))
    }

    /// What the archiver recorded for `record`.
    public init(record: ArchiveRecord) {
        self.init(source: .record, facts: record.facts)
    }
}
