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

    static let columns = """
        archive_id, state, file, sha256, bytes, jobs, events, first_position, last_position, finished_before, created_at
        """

    init(row: PostgresRow) throws {
        archiveID = try row.decode(UUID.self, at: 0)
        state = State(rawValue: try row.decode(String.self, at: 1)) ?? .sealed
        file = try row.decode(String.self, at: 2)
        sha256 = try row.decode(String.self, at: 3)
        bytes = try row.decode(Int.self, at: 4)
        jobs = try row.decode(Int.self, at: 5)
        events = try row.decode(Int.self, at: 6)
        firstPosition = try row.decode(Int?.self, at: 7)
        lastPosition = try row.decode(Int?.self, at: 8)
        finishedBefore = try row.decode(Date.self, at: 9)
        createdAt = try row.decode(Date.self, at: 10)
    }
}
