import FerryCore
import Foundation

/// A batch none of whose jobs is left in PostgreSQL, with archived ones: where they went. A batch archived in
/// several runs spans several files, each restored on its own.
public struct ArchivedBatch: Sendable, Equatable {
    /// One archive file holding some of the batch's jobs.
    public struct File: Sendable, Equatable {
        public var file: String
        public var jobs: Int
        public var archivedAt: Date

        public init(file: String, jobs: Int, archivedAt: Date) {
            self.file = file
            self.jobs = jobs
            self.archivedAt = archivedAt
        }
    }

    public var batch: String
    /// Newest first.
    public var files: [File]

    public init(batch: String, files: [File]) {
        self.batch = batch
        self.files = files
    }

    public var jobs: Int { files.reduce(0) { $0 + $1.jobs } }

    /// The commands that bring it back, one per file.
    public var restoreCommands: [String] { files.map { "ferry archive restore \($0.file)" } }

    /// The answer everywhere: the batch, when, where, and how to restore it (code `archived`).
    public var error: FerryStoreError {
        let when = files.first.map { ScheduleTime.iso8601($0.archivedAt) } ?? "?"
        let places = files.map(\.file)
        let to = places.count == 1 ? places[0] : "\(places.count) files (\(places.joined(separator: ", ")))"
        return FerryStoreError(
            .archived, "batch \(batch) was archived: its \(jobs) job(s) left PostgreSQL on \(when) for \(to)",
            fix: "bring it back with " + restoreCommands.joined(separator: "; "))
    }

    /// `{"batch", "jobs", "archived_at", "files": [{"file", "jobs", "archived_at", "restore"}]}`.
    public var json: JSONValue {
        .object([
            "batch": .string(batch), "jobs": .int(Int64(jobs)),
            "archived_at": files.first.map { .string(ScheduleTime.iso8601($0.archivedAt)) } ?? .null,
            "files": .array(files.map { file in
                .object([
                    "file": .string(file.file), "jobs": .int(Int64(file.jobs)),
                    "archived_at": .string(ScheduleTime.iso8601(file.archivedAt)), "restore": .string("ferry archive restore \(file.file)"),
                ])
            }),
        ])
    }
}
