import Foundation

/// Collects what a verify finds, chunk after chunk: every job is counted, at most `limit` differences are kept.
struct ProjectionComparison {
    let limit: Int
    private(set) var jobsChecked = 0
    private(set) var differences: [ProjectionReport.Difference] = []
    private(set) var truncated = false

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// A replayed job with its stored row (`stored` is the COPY row `fields` belong to), or without one.
    mutating func add(_ job: ReplayedJob, stored: UnsafeRawBufferPointer?, fields: [ReplayText], in arena: borrowing ReplayArena) {
        jobsChecked += 1
        if let refusal = job.refusal {
            record(arena.string(job.jobID), .refused(
                version: refusal.version, type: refusal.type, sqlState: refusal.error.sqlState, message: refusal.error.message))
            return
        }
        guard let row = job.row else { return }
        guard let stored else {
            record(arena.string(job.jobID), .missingFromProjection)
            return
        }
        let columns = row.differences(from: stored, fields: fields, in: arena)
        if columns.isEmpty { return }
        record(arena.string(job.jobID), .columns(columns.map { column in
            let field = fields[column.rawValue]
            let storedText = field.isNull
                ? nil : CopyText.unescape(UnsafeRawBufferPointer(rebasing: stored[Int(field.offset)..<Int(field.offset + field.count)]))
            return (column.name, column.render(storedText), column.render(row.value(column, in: arena)))
        }))
    }

    /// A stored row no event produced.
    mutating func addWithoutEvents(_ stored: UnsafeRawBufferPointer, fields: [ReplayText]) {
        jobsChecked += 1
        let id = fields[0]
        record(CopyText.unescape(UnsafeRawBufferPointer(rebasing: stored[Int(id.offset)..<Int(id.offset + id.count)])),
               .missingEvents)
    }

    private mutating func record(_ id: String?, _ kind: ProjectionReport.Difference.Kind) {
        guard differences.count < limit else {
            truncated = true
            return
        }
        differences.append(.init(jobID: id.flatMap(UUID.init(uuidString:)) ?? UUID(), kind: kind))
    }
}
