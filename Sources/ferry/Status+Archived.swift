import FerryCore
import FerryStore
import Foundation

extension Status {
    /// The answer for a job that is not in PostgreSQL: archived (exit 67, with `{"archived": …}` on stdout for
    /// `--json`) or unknown (exit 66). `ferry status`, `ferry events` and `ferry wait` answer alike.
    static func missing(job id: UUID, _ archived: ArchivedJob?, json: Bool) -> FerryStoreError {
        guard let archived else {
            return FerryStoreError(.notFound, "no job \(id.uuidString.lowercased())", fix: "check the id (ferry status --batch NAME lists jobs)")
        }
        if json { print(JSONValue.object(["archived": archived.json]).jsonText) }
        return archived.error
    }

    /// The answer for a batch with no job in PostgreSQL: archived (exit 67) or unknown (exit 66).
    static func missing(batch name: String, _ archived: ArchivedBatch?, json: Bool) -> FerryStoreError {
        guard let archived else {
            return FerryStoreError(.notFound, "no batch named \(name)", fix: "check the name (ferry status lists batches)")
        }
        if json { print(JSONValue.object(["archived": archived.json]).jsonText) }
        return archived.error
    }
}
