import FerryCore
import FerryStore
import Foundation

/// Failed jobs that share a `FailureSignature`: how many, the newest few, and every member's id (for the group's
/// retry).
struct FailureGroup: Sendable {
    /// Members listed per group on the page and in JSON; `count` and `jobIDs` cover them all.
    static let shownJobs = 20

    var signature: FailureSignature
    var count: Int
    /// The newest members first, at most `shownJobs`.
    var jobs: [FailureRow]
    var jobIDs: [UUID]

    /// Groups in order of their newest failure (rows come newest first).
    static func groups(_ rows: [FailureRow]) -> [FailureGroup] {
        var order = [FailureSignature]()
        var groups = [FailureSignature: FailureGroup]()
        for row in rows {
            let signature = FailureSignature(error: row.lastError)
            if groups[signature] == nil {
                order.append(signature)
                groups[signature] = FailureGroup(signature: signature, count: 0, jobs: [], jobIDs: [])
            }
            groups[signature]!.count += 1
            groups[signature]!.jobIDs.append(row.jobID)
            if groups[signature]!.jobs.count < shownJobs { groups[signature]!.jobs.append(row) }
        }
        return order.map { groups[$0]! }
    }

    func json(fixes: FailureFix) -> JSONValue {
        .object([
            "id": .string(signature.id), "error": .string(signature.text), "code": .string(signature.code),
            "message": .string(signature.message), "count": .int(Int64(count)),
            "fix": .string(fixes.text(code: signature.code, exhausted: signature.message.contains("attempts exhausted"))),
            "jobs": .array(jobs.map(Self.json)),
        ])
    }

    static func json(_ row: FailureRow) -> JSONValue {
        .object([
            "job_id": .string(row.jobID.uuidString.lowercased()), "batch": row.batch.map(JSONValue.string) ?? .null,
            "source": .string(row.source), "destination": .string(row.destination),
            "last_error": row.lastError.map(JSONValue.string) ?? .null,
            "finished_at": row.finishedAt.map { .string($0.iso8601) } ?? .null,
        ])
    }
}
