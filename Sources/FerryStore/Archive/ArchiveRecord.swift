import Foundation
import Postgres

/// One row of `ferry.archives`: an archive file and what it holds.
public struct ArchiveRecord: ArchiveFactsCarrier, Sendable, Equatable {
    /// `sealed`: the rows left PostgreSQL, the file may still carry its `.partial` name; `complete`: final name
    /// and manifest written; `restored`: its jobs are back in the log.
    public enum State: String, Sendable { case sealed, complete, restored }

    public var archiveID: UUID
    public var state: State
    public var file: String
    /// What the file holds, as recorded when it was sealed (read as `record.sha256` and so on).
    public var facts: ArchiveFacts
    public var finishedBefore: Date
    public var createdAt: Date
}
