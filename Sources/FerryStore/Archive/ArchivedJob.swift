import FerryCore
import Foundation

/// Where an archived job went: every command that looks a job up (status, events, wait, the dashboard) says so
/// instead of "no such job".
public struct ArchivedJob: Sendable, Equatable {
    public var jobID: UUID
    public var archiveID: UUID
    public var file: String
    public var archivedAt: Date

    public init(jobID: UUID, archiveID: UUID, file: String, archivedAt: Date) {
        self.jobID = jobID
        self.archiveID = archiveID
        self.file = file
        self.archivedAt = archivedAt
    }

    /// The command that brings it back.
    public var restoreCommand: String { "ferry archive restore \(file)" }

    /// The answer everywhere: the job, when, where, and how to restore it (code `archived`).
    public var error: FerryStoreError {
        FerryStoreError(
            .archived, "job \(jobID.uuidString.lowercased()) was archived on \(ScheduleTime.iso8601(archivedAt)) to \(file)",
            fix: "bring it back with \(restoreCommand)")
    }

    /// `{"job_id", "archived_at", "archive_id", "file", "restore"}`, the same in the CLI's and the dashboard's JSON.
    public var json: JSONValue {
        .object([
            "job_id": .string(jobID.uuidString.lowercased()), "archived_at": .string(ScheduleTime.iso8601(archivedAt)),
            "archive_id": .string(archiveID.uuidString.lowercased()), "file": .string(file), "restore": .string(restoreCommand),
        ])
    }
}
