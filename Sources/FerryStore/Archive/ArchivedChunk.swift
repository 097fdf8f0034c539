import Foundation

/// What one committed archive chunk moved out of PostgreSQL.
public struct ArchivedChunk: Sendable, Equatable {
    public var archiveID: UUID
    public var file: ArchiveFileFacts
    public var jobs: Int
    public var events: Int
    public var firstPosition: Int
    public var lastPosition: Int
}
