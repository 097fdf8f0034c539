import Foundation
import Postgres

extension ArchiveRecord {
    /// The SELECT list `init(row:)` decodes: each name (or alias) is a column name the decoder reads.
    static let columns = """
        archive_id, state, file, sha256, bytes, jobs, events, first_position, last_position, finished_before, created_at
        """

    /// Decodes a row selected with `columns`, by column name.
    init(row: PostgresRow) throws {
        archiveID = try row.decode(UUID.self, column: "archive_id")
        state = State(rawValue: try row.decode(String.self, column: "state")) ?? .sealed
        file = try row.decode(String.self, column: "file")
        facts = ArchiveFacts(
            sha256: try row.decode(String.self, column: "sha256"), bytes: try row.decode(Int.self, column: "bytes"),
            jobs: try row.decode(Int.self, column: "jobs"), events: try row.decode(Int.self, column: "events"),
            firstPosition: try row.decode(Int?.self, column: "first_position"),
            lastPosition: try row.decode(Int?.self, column: "last_position"))
        finishedBefore = try row.decode(Date.self, column: "finished_before")
        createdAt = try row.decode(Date.self, column: "created_at")
    }
}
