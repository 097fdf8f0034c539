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

    static let columns = "position, job_id, version, type, data::text, tx_id::text, recorded_at"

    init(row: PostgresRow) throws {
        position = try row.decode(Int64.self, at: 0)
        jobID = try row.decode(UUID.self, at: 1)
        version = try row.decode(Int.self, at: 2)
        type = try row.decode(String.self, at: 3)
        data = try row.decode(String.self, at: 4)
        transactionID = try row.decode(String.self, at: 5)
        recordedAt = try row.decode(PostgresTimestamp.self, at: 6)
    }

    public var json: JSONValue {
        .object([
            "position": .int(position), "job_id": .string(jobID.uuidString.lowercased()),
            "version": .int(Int64(version)), "type": .string(type),
            "data": (try? JSONValue.parse(data)) ?? .null, "tx_id": .string(transactionID),
            "recorded_at": .string(recordedAt.iso8601),
        ])
    }
}
