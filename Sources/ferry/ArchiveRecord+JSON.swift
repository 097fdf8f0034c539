import FerryCore
import FerryStore

extension ArchiveRecord {
    /// The JSON form `ferry archive list --json` prints, one object per archive file.
    var json: JSONValue {
        .object([
            "archive_id": .string(archiveID.uuidString.lowercased()), "state": .string(state.rawValue), "file": .string(file),
            "sha256": .string(sha256), "bytes": .int(Int64(bytes)), "jobs": .int(Int64(jobs)), "events": .int(Int64(events)),
            "first_position": firstPosition.map { .int(Int64($0)) } ?? .null,
            "last_position": lastPosition.map { .int(Int64($0)) } ?? .null,
            "finished_before": .string(ScheduleTime.iso8601(finishedBefore)), "created_at": .string(ScheduleTime.iso8601(createdAt)),
        ])
    }
}
