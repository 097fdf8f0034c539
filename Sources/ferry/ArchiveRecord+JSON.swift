import FerryCore
import FerryStore

extension ArchiveRecord {
    /// The JSON form `ferry archive list --json` prints, one object per archive file.
    var json: JSONValue {
        .object([
            "archive_id": .string(archiveID.uuidString.lowercased()), "state": .string(state.rawValue), "file": .string(file),
            "sha256": .string(facts.sha256), "bytes": .int(Int64(facts.bytes)), "jobs": .int(Int64(facts.jobs)),
            "events": .int(Int64(facts.events)), "first_position": facts.firstPosition.map { .int(Int64($0)) } ?? .null,
            "last_position": facts.lastPosition.map { .int(Int64($0)) } ?? .null,
            "finished_before": .string(ScheduleTime.iso8601(finishedBefore)), "created_at": .string(ScheduleTime.iso8601(createdAt)),
        ])
    }
}
