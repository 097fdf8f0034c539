import Foundation

extension FoldedJob {
    /// The columns where the stored row (`fields` of `row`, a COPY row of ``ProjectionColumn/selectList``)
    /// differs from this one, compared as PostgreSQL's text output of each column.
    func differences(from row: UnsafeRawBufferPointer, fields: [ReplayText], in arena: borrowing ReplayArena) -> [ProjectionColumn] {
        var columns = [ProjectionColumn]()
        func text(_ column: ProjectionColumn, _ value: ReplayText) {
            if !arena.equal(value, row, fields[column.rawValue]) { columns.append(column) }
        }
        func integer(_ column: ProjectionColumn, _ value: Int64?) {
            let field = fields[column.rawValue]
            let stored = field.isNull
                ? nil : CopyText.canonicalInteger(UnsafeRawBufferPointer(rebasing: row[Int(field.offset)..<Int(field.offset + field.count)]))
            if field.isNull != (value == nil) || stored != value { columns.append(column) }
        }
        func literal(_ column: ProjectionColumn, _ value: StaticString) {
            let field = fields[column.rawValue]
            let matches = !field.isNull && Int(field.count) == value.utf8CodeUnitCount
                && memcmp(row.baseAddress! + Int(field.offset), value.utf8Start, value.utf8CodeUnitCount) == 0
            if !matches { columns.append(column) }
        }
        text(.jobID, jobID)
        integer(.version, version)
        text(.kind, kind)
        text(.queue, queue)
        text(.batch, batch)
        integer(.priority, priority)
        literal(.state, state.literal)
        integer(.attempt, attempt)
        integer(.maxAttempts, maxAttempts)
        integer(.lease, lease)
        text(.worker, worker)
        text(.account, account)
        text(.source, source)
        text(.destination, destination)
        text(.idempotencyKey, idempotencyKey)
        text(.spec, spec)
        text(.metadata, metadata)
        text(.runAt, runAt)
        literal(.cancelRequested, cancelRequested ? "t" : "f")
        integer(.bytesDone, bytesDone)
        integer(.bytesTotal, bytesTotal)
        text(.session, session)
        text(.lastError, lastError)
        text(.result, result)
        text(.enqueuedAt, enqueuedAt)
        text(.startedAt, startedAt)
        text(.finishedAt, finishedAt)
        text(.updatedAt, updatedAt)
        return columns
    }

    /// One column's value as unescaped text (`nil` for NULL), for reports.
    func value(_ column: ProjectionColumn, in arena: borrowing ReplayArena) -> String? {
        switch column {
        case .jobID: arena.string(jobID)
        case .version: String(version)
        case .kind: arena.string(kind)
        case .queue: arena.string(queue)
        case .batch: arena.string(batch)
        case .priority: String(priority)
        case .state: state.rawValue
        case .attempt: String(attempt)
        case .maxAttempts: String(maxAttempts)
        case .lease: String(lease)
        case .worker: arena.string(worker)
        case .account: arena.string(account)
        case .source: arena.string(source)
        case .destination: arena.string(destination)
        case .idempotencyKey: arena.string(idempotencyKey)
        case .spec: arena.string(spec)
        case .metadata: arena.string(metadata)
        case .runAt: arena.string(runAt)
        case .cancelRequested: cancelRequested ? "t" : "f"
        case .bytesDone: String(bytesDone)
        case .bytesTotal: bytesTotal.map { String($0) }
        case .session: arena.string(session)
        case .lastError: arena.string(lastError)
        case .result: arena.string(result)
        case .enqueuedAt: arena.string(enqueuedAt)
        case .startedAt: arena.string(startedAt)
        case .finishedAt: arena.string(finishedAt)
        case .updatedAt: arena.string(updatedAt)
        }
    }

    /// Appends this row in COPY text format (columns in table order, newline-terminated) for a rebuild.
    func appendCopyRow(to out: inout [UInt8], from arena: borrowing ReplayArena) {
        func text(_ value: ReplayText) {
            if value.isNull {
                out.append(UInt8(ascii: "\\"))
                out.append(UInt8(ascii: "N"))
            } else {
                arena.bytes.withUnsafeBufferPointer { buffer in
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[Int(value.offset)..<Int(value.offset + value.count)]))
                }
            }
            out.append(UInt8(ascii: "\t"))
        }
        func integer(_ value: Int64?) {
            if let value { CopyText.appendDecimal(value, to: &out) } else {
                out.append(UInt8(ascii: "\\"))
                out.append(UInt8(ascii: "N"))
            }
            out.append(UInt8(ascii: "\t"))
        }
        text(jobID)
        integer(version)
        text(kind)
        text(queue)
        text(batch)
        integer(priority)
        out.append(contentsOf: state.rawValue.utf8)
        out.append(UInt8(ascii: "\t"))
        integer(attempt)
        integer(maxAttempts)
        integer(lease)
        text(worker)
        text(account)
        text(source)
        text(destination)
        text(idempotencyKey)
        text(spec)
        text(metadata)
        text(runAt)
        out.append(cancelRequested ? UInt8(ascii: "t") : UInt8(ascii: "f"))
        out.append(UInt8(ascii: "\t"))
        integer(bytesDone)
        integer(bytesTotal)
        text(session)
        text(lastError)
        text(result)
        text(enqueuedAt)
        text(startedAt)
        text(finishedAt)
        text(updatedAt)
        out[out.count - 1] = UInt8(ascii: "\n")
    }
}
