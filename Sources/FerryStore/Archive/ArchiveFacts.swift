/// What an archive file holds, as the archiver recorded it and its manifest states it: the facts a restore checks
/// the file against (``ArchiveRecord``, ``ArchiveExpectation`` and the manifest each carry one).
public struct ArchiveFacts: Codable, Sendable, Equatable {
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

    enum CodingKeys: String, CodingKey {
        case sha256, bytes, jobs, events
        case firstPosition = "first_position"
        case lastPosition = "last_position"
    }

    public init(sha256: String, bytes: Int, jobs: Int, events: Int, firstPosition: Int?, lastPosition: Int?) {
        (self.sha256, self.bytes, self.jobs, self.events) = (sha256, bytes, jobs, events)
        (self.firstPosition, self.lastPosition) = (firstPosition, lastPosition)
    }
}
