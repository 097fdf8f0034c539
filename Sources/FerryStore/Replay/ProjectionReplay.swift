import FerryCore
import Foundation
import Postgres

/// Replays the event log chunk by chunk on one connection, inside the caller's transaction: each chunk's
/// events are streamed out with COPY and folded with ``JobFold``; then the chunk is compared with the stored
/// projection (verify) or copied into it (rebuild). Memory holds one chunk.
struct ProjectionReplay {
    let connection: PostgresConnection
    /// Events per chunk (a chunk always holds whole jobs, so one job with more events makes a larger chunk).
    let chunkEvents: Int
    /// Jobs a chunk of the whole log aims at: each costs a folded row beside its events, so with few events per
    /// job, `chunkEvents` events would hold that many rows too (at one event per job: 154 MiB at 200,000).
    let chunkJobs: Int
    private(set) var arena = ReplayArena()
    private(set) var jobs: [ReplayedJob] = []
    private(set) var eventsReplayed = 0
    /// Where the current chunk's jobs end (the first job id of the next chunk, as COPY prints it); nil for the
    /// last chunk of the whole log.
    private(set) var chunkUntil: [UInt8]?
    private var fields: [ReplayText] = []
    private var eventData = EventData()

    init(connection: PostgresConnection, chunkEvents: Int = 200_000) {
        self.connection = connection
        self.chunkEvents = max(1, chunkEvents)
        chunkJobs = max(1, self.chunkEvents / 4)
        jobs.reserveCapacity(chunkJobs)
        fields.reserveCapacity(ProjectionColumn.allCases.count)
    }

    /// Folds `scope` chunk by chunk; after each chunk is folded, `body` gets the range of job ids it covers
    /// (the bounds are set for ``ReplayQueries/jobs(_:)``), to compare or write it.
    ///
    /// A chunk is the next `chunkEvents` events in (job, version) order: no boundary lookup, the COPY's LIMIT
    /// ends it. Its last job may be cut, so it is left for the next chunk, which starts at that job; the jobs
    /// range of the chunk ends just before it. Ranges tile the whole uuid space, so rows without events are met.
    /// The first chunk reads `chunkJobs` events (how many events a job has is not known yet); each next one as
    /// many as about `chunkJobs` jobs had in the chunk before, at most `chunkEvents`.
    mutating func forEachChunk(_ scope: ProjectionScope, _ body: (inout ProjectionReplay, ReplayQueries.Range) throws -> Void) throws {
        // Each chunk's statements are planned afresh and cost enough to be JIT-compiled every time, for no gain
        // on plain index ranges (measured: seconds over 10,000,000 events).
        try connection.execute("SET LOCAL jit = off")
        // --since reads its cursor to the end: plan it for all rows, not for a fast first tenth (which walks
        // every event in job order to filter them, instead of a range of positions or a BRIN scan of times).
        try connection.execute("SET LOCAL cursor_tuple_fraction = 1")
        switch scope {
        case .all:
            var from = "00000000-0000-0000-0000-000000000000"
            var limit = min(chunkEvents, chunkJobs)
            while true {
                try connection.query(ReplayQueries.setChunk, [from, String(limit)])
                let read = try fold(.limited)
                guard read == limit else {
                    chunkUntil = nil
                    try body(&self, .from)  // fewer events than asked for: the log's end
                    return
                }
                let cut = jobs.removeLast()
                eventsReplayed -= cut.events
                guard !jobs.isEmpty else {
                    limit *= 2  // one job has more events than the chunk: read more of it at once
                    continue
                }
                let until = arena.string(cut.jobID) ?? from
                chunkUntil = Array(until.utf8)
                try connection.query(ReplayQueries.setUntil, [until])
                try body(&self, .between)
                from = until
                limit = max(1, min(chunkEvents, (read - cut.events) * chunkJobs / jobs.count))
            }
        case .afterPosition(let position):
            try connection.query(ReplayQueries.declareSincePosition, [position])
            try forEachIDChunk(body)
        case .recordedSince(let date):
            try connection.query(ReplayQueries.declareSinceTime, [date])
            try forEachIDChunk(body)
        }
    }

    /// Folds the jobs a restore brought back (the job ids of its scratch table `ferry_restore`), chunk by chunk
    /// like ``forEachChunk(_:_:)``, for the restore to compare with the rows it wrote in the same transaction.
    mutating func forEachRestoredChunk(_ body: (inout ProjectionReplay, ReplayQueries.Range) throws -> Void) throws {
        try connection.execute("SET LOCAL jit = off")
        try connection.execute(ReplayQueries.declareRestored)
        try forEachIDChunk(body)
    }

    private mutating func forEachIDChunk(_ body: (inout ProjectionReplay, ReplayQueries.Range) throws -> Void) throws {
        // About chunkEvents events per chunk at the ten events a job typically has.
        let fetch = ReplayQueries.fetchJobs(max(1, chunkEvents / 10))
        while true {
            let ids = try connection.query(fetch).rows.map { try $0.decode(UUID.self, column: "job_id") }
            if ids.isEmpty { break }
            try connection.query(ReplayQueries.setIDs, ["{" + ids.map(\.uuidString).joined(separator: ",") + "}"])
            try fold(.ids)
            try body(&self, .ids)
        }
        try connection.execute(ReplayQueries.closeJobs)
    }

    /// Streams the chunk's events out and folds them into ``jobs`` (replacing the previous chunk). Returns the
    /// number of events read.
    @discardableResult
    mutating func fold(_ range: ReplayQueries.Range) throws -> Int {
        arena.removeAll()
        jobs.removeAll(keepingCapacity: true)
        var current: ReplayedJob?
        let connection = self.connection
        let read = try connection.copyOut(ReplayQueries.events(range)) { row in
            try arena.appendRow(row)
            let event = try ReplayEvent(&arena, data: &eventData)
            if current == nil || !arena.equal(current!.jobID, event.jobID) {
                if let finished = current { jobs.append(finished) }
                current = ReplayedJob(jobID: event.jobID, row: nil, refusal: nil)
            }
            eventsReplayed += 1
            current!.events += 1
            if current!.refusal != nil { return }
            do throws(JobFoldError) {
                current!.row = try JobFold.apply(current!.row, event, in: arena)
            } catch {
                current!.refusal = .init(version: event.version, type: arena.string(event.typeName) ?? "null", error: error)
            }
        }
        if let finished = current { jobs.append(finished) }
        return read
    }

    /// Compares the folded chunk with its stored rows; `report` collects what differs.
    mutating func compare(_ range: ReplayQueries.Range, into report: inout ProjectionComparison) throws {
        var index = 0
        let connection = self.connection
        try connection.copyOut(ReplayQueries.jobs(range)) { row in
            try compareRow(row, index: &index, into: &report)
        }
        finishComparison(index: index, into: &report)
    }

    /// Compares the folded chunk (of a whole-log verify) with its rows from `stream`: every row before
    /// ``chunkUntil``, or every row left after the last chunk.
    mutating func compare(streamed stream: StoredRowStream, into report: inout ProjectionComparison) throws {
        var index = 0
        while try stream.next(before: chunkUntil, { row in try compareRow(row, index: &index, into: &report) }) {}
        finishComparison(index: index, into: &report)
    }

    /// One stored row against the folded jobs from `index` on (both in job order): jobs before it have no row.
    private mutating func compareRow(_ row: UnsafeRawBufferPointer, index: inout Int, into report: inout ProjectionComparison) throws {
        let count = row.last == UInt8(ascii: "\n") ? row.count - 1 : row.count
        fields.removeAll(keepingCapacity: true)
        ReplayArena.split(row, count: count, base: 0, into: &fields)
        guard fields.count == ProjectionColumn.allCases.count else {
            throw ReplayDecodingError("a projection row has \(fields.count) fields")
        }
        while index < jobs.count && arena.compare(jobs[index].jobID, row, fields[0]) < 0 {
            report.add(jobs[index], stored: nil, fields: fields, in: arena)
            index += 1
        }
        if index < jobs.count && arena.compare(jobs[index].jobID, row, fields[0]) == 0 {
            report.add(jobs[index], stored: row, fields: fields, in: arena)
            index += 1
        } else {
            report.addWithoutEvents(row, fields: fields)
        }
    }

    /// Folded jobs left once the chunk's rows are done have no row.
    private func finishComparison(index: Int, into report: inout ProjectionComparison) {
        for job in jobs[index...] {
            report.add(job, stored: nil, fields: fields, in: arena)
        }
    }

    /// Copies the folded chunk into ferry.jobs. Throws on the first refused event, as `ferry.rebuild_projection`
    /// raised: the projection cannot be rebuilt from an inconsistent log.
    func write() throws {
        if let refused = jobs.first(where: { $0.refusal != nil }), let refusal = refused.refusal {
            throw ProjectionReplayError(
                jobID: arena.string(refused.jobID) ?? "", version: refusal.version, type: refusal.type, error: refusal.error)
        }
        var buffer = [UInt8]()
        buffer.reserveCapacity(4096)
        try connection.copyIn(ReplayQueries.copyJobsIn) { writer in
            for job in jobs {
                guard let row = job.row else { continue }
                buffer.removeAll(keepingCapacity: true)
                row.appendCopyRow(to: &buffer, from: arena)
                try writer.writeEncodedRow(buffer)
            }
        }
    }
}
