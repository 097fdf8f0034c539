import FerryCore
import Foundation
import Postgres

/// Validated jobs with their `enqueued` events already rendered as `COPY` text rows.
///
/// Rendering is CPU work that does not need the database: a bulk enqueue makes chunks on its reading thread
/// while the connection is busy writing the previous one.
public struct EnqueueChunk: Sendable {
    public let specs: [JobSpec]
    /// Input line of each spec, for error messages.
    public let lines: [Int?]?
    /// `job_id, version, type, data` of each spec's `enqueued` event, COPY-escaped, newline-terminated.
    let rows: [[UInt8]]

    public init(specs: [JobSpec], lines: [Int?]?) {
        self.specs = specs
        self.lines = lines
        var rows = [[UInt8]]()
        rows.reserveCapacity(specs.count)
        var json = [UInt8]()
        json.reserveCapacity(1024)
        let prefix = Array("\t1\tenqueued\t".utf8)
        for spec in specs {
            json.removeAll(keepingCapacity: true)
            var data = spec.enqueuedEventData
            if spec.idempotencyKey != nil, case .object(var members) = data {
                members["fingerprint"] = .string(spec.argumentsFingerprint)
                data = .object(members)
            }
            data.write(into: &json)
            var row = [UInt8]()
            row.reserveCapacity(json.count + 64)
            row.append(contentsOf: spec.jobID.uuidString.lowercased().utf8)
            row.append(contentsOf: prefix)
            PostgresCopyWriter.appendEscaped(json, to: &row)
            row.append(UInt8(ascii: "\n"))
            rows.append(row)
        }
        self.rows = rows
    }
}
