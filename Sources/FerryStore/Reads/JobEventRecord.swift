import FerryCore
import Foundation
import Postgres

/// One stored event of a job's history.
public struct JobEventRecord: Sendable, Hashable {
    public var position: Int64
    public var jobID: UUID
    public var version: Int
    public var type: String
    public var data: String
    public var transactionID: String
    public var recordedAt: PostgresTimestamp

    public var json: JSONValue {
        .object([
            "position": .int(position), "job_id": .string(jobID.uuidString.lowercased()),
            "version": .int(Int64(version)), "type": .string(type),
            "data": (try? JSONValue.parse(data)) ?? .null, "tx_id": .string(transactionID),
            "recorded_at": .string(recordedAt.iso8601),
        ])
    }
}
