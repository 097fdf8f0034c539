import Foundation
import Postgres

/// One row of `ferry.archives`: an archive file and what it holds.
public struct ArchiveRecord: Sendable, Equatable {
    /// `sealed`: the rows left PostgreSQL, the file may still carry its `.partial` name; `complete`: final name
    /// and manifest written; `restored`: its jobs are back in the log.
    public enum State: String, Sendable { case sealed, complete, restored }

    public var archiveID: UUID
    public var state: State
    public var file: String
    public var sha256: String
    public var bytes: Int
    public var jobs: Int
    public var events: Int
    public var firstPosition: Int?
    public var lastPosition: Int?
    public var finishedBefore: Date
    public var createdAt: Date
}
