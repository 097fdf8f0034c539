import FerryCore
import Foundation
import Postgres

extension ArchiveStore {
    /// Brings an archive's jobs back: their events with their original positions, transactions and times, and
    /// their projection rows as they were. All or nothing; a second restore of the same archive does nothing.
    ///
    /// `lines` are the archive's JSON lines (one job each); it throws when the file is not what `expected` says
    /// (its checksum is known only at its end), and nothing is kept. The file is not trusted: in the same
    /// transaction the restore checks that
    /// - the archive is recorded in this database's `ferry.archives` with exactly the facts of `expected` (or,
    ///   with `allowForeign`, that it is not recorded at all: then `expected` is what its manifest claims);
    /// - the lines hold `expected.jobs` jobs and `expected.events` events, in the recorded range of positions,
    ///   every event belonging to its line's job;
    /// - every job is finished (succeeded, failed, cancelled or discarded);
    /// - every restored row is exactly the fold of its restored events (what `ferry projection verify` checks).
    ///
    /// Any difference throws ``FerryStoreError`` (`archiveFile`, `foreignArchive` or `restoreConflict`) and
    /// rolls everything back. The projection and batch triggers do not fire for these events (the rows come back
    /// as the projection held them, and are checked against the fold instead).
    public func restore(
        _ archiveID: UUID, file: String, expected: ArchiveExpectation, finishedBefore: Date, allowForeign: Bool,
        lines: @escaping @Sendable (_ emit: (String) throws -> Void) throws -> Void
    ) async throws -> RestoreOutcome {
        let name = archiveID.uuidString.lowercased()
        do {
            return try await client.withTransaction { connection -> RestoreOutcome in
                let record = try Self.lockRestoreRecord(connection, archiveID, expected: expected, allowForeign: allowForeign)
                if record?.state == .restored { return .alreadyRestored }
                try Self.markRestoring(
                    connection, archiveID, recorded: record != nil, file: file, expected: expected, finishedBefore: finishedBefore)
                try connection.execute("CREATE TEMP TABLE ferry_restore (line jsonb NOT NULL) ON COMMIT DROP")
                try connection.copyIn("COPY ferry_restore (line) FROM STDIN") { writer in
                    try lines { line in try writer.writeRow([line]) }
                }
                try Self.checkRestoreContent(connection, archive: name, expected: expected)
                let (jobs, events) = try Self.insertRestored(connection, archive: name, foreign: record == nil, expected: expected)
                try Self.checkRestoredFold(connection, archive: name)
                try Self.finishRestore(connection, archiveID)
                return .restored(jobs: jobs, events: events)
            }
        } catch let error as PostgresError {
            throw Self.restoreError(error, archive: name)
        } catch {
            throw FerryStore.translate(error)
        }
    }

    /// The archive's record, locked, checked against `expected`; `nil` for a foreign archive restored on request.
    private static func lockRestoreRecord(
        _ connection: PostgresConnection, _ archiveID: UUID, expected: ArchiveExpectation, allowForeign: Bool
    ) throws -> ArchiveRecord? {
        let name = archiveID.uuidString.lowercased()
        let record = try connection.query(
            "SELECT \(ArchiveRecord.columns) FROM ferry.archives WHERE archive_id = $1 FOR UPDATE", [archiveID]
        ).rows.first.map(ArchiveRecord.init(row:))
        if let record {
            if record.state == .restored { return record }
            // The caller checked the file against this record; it must still be the same record.
            guard expected.source == .record, ArchiveExpectation(record: record) == expected else {
                throw FerryStoreError(
                    .archiveFile, "archive \(name) is recorded in this database with other facts than the file was checked against",
                    fix: "run ferry archive restore again (it checks against the record); nothing was written")
            }
        } else if !allowForeign {
            throw Self.foreignArchiveError(name)
        }
        return record
    }

    /// Records the restore's token (the triggers let its events through), recording a foreign archive first.
    private static func markRestoring(
        _ connection: PostgresConnection, _ archiveID: UUID, recorded: Bool, file: String, expected: ArchiveExpectation,
        finishedBefore: Date
    ) throws {
        let token = UUID()
        if !recorded {
            // A foreign archive, restored on request: record it with the facts its content was checked against.
            try connection.query(
                """
                INSERT INTO ferry.archives (archive_id, state, file, sha256, bytes, jobs, events, first_position,
                                            last_position, finished_before, restore_token)
                VALUES ($1, 'sealed', $2, $3, $4, $5, $6, $7, $8, $9, $10)
                """,
                [archiveID, file, expected.sha256, expected.bytes, expected.jobs, expected.events,
                 expected.firstPosition, expected.lastPosition, finishedBefore, token])
        } else {
            try connection.query(
                "UPDATE ferry.archives SET restore_token = $2 WHERE archive_id = $1", [archiveID, token])
        }
        try connection.query("SELECT set_config('ferry.restore_token', $1, true)", [token.uuidString])
    }

    /// Inserts the staged events and rows, refusing jobs the database holds already: (jobs, events) inserted.
    private static func insertRestored(
        _ connection: PostgresConnection, archive name: String, foreign: Bool, expected: ArchiveExpectation
    ) throws -> (jobs: Int, events: Int) {
        let clash = try connection.query(
            """
            SELECT count(*) AS clashes FROM ferry_restore r
             WHERE EXISTS (SELECT 1 FROM ferry.jobs j WHERE j.job_id = (r.line->'job'->>'job_id')::uuid)
                OR EXISTS (SELECT 1 FROM ferry.events e WHERE e.job_id = (r.line->'job'->>'job_id')::uuid)
            """
        ).rows[0].decode(Int.self, column: "clashes")
        guard clash == 0 else {
            throw FerryStoreError(
                .restoreConflict, "\(clash) job(s) of archive \(name) are in the database already",
                fix: "this archive was restored by other means; nothing was written")
        }
        let events = try connection.query(
            """
            INSERT INTO ferry.events OVERRIDING SYSTEM VALUE
            SELECT (jsonb_populate_record(NULL::ferry.events, e.value)).*
              FROM ferry_restore r CROSS JOIN LATERAL jsonb_array_elements(r.line->'events') e
             ORDER BY (e.value->>'position')::bigint
            """
        ).affectedRows
        let jobs = try connection.query(
            "INSERT INTO ferry.jobs SELECT (jsonb_populate_record(NULL::ferry.jobs, r.line->'job')).* FROM ferry_restore r"
        ).affectedRows
        if foreign, let last = expected.lastPosition {
            // Another database's positions may lie ahead of this log's: move the sequence past them, so
            // later appends do not collide with a restored position. (Never backwards: nextval is taken.)
            try connection.query(
                """
                SELECT setval(s, greatest($1::bigint, nextval(s)))
                  FROM (SELECT pg_get_serial_sequence('ferry.events', 'position')::regclass AS s) q
                """, [last])
        }
        return (jobs, events)
    }

    /// Counts the restored jobs into the views' totals and marks the archive restored.
    private static func finishRestore(_ connection: PostgresConnection, _ archiveID: UUID) throws {
        try connection.query(
            """
            SELECT ferry.count_changes(array_agg(
                       ROW(j.job_id, j.queue, j.batch, NULL, j.state, NULL, NULL, j.bytes_done, j.bytes_total, j.enqueued_at,
                           j.started_at, j.finished_at, NULL,
                           j.state = 'succeeded' AND j.result->>'skipped' = 'unchanged')::ferry.job_change))
              FROM ferry_restore r CROSS JOIN LATERAL jsonb_populate_record(NULL::ferry.jobs, r.line->'job') j
            """)
        try connection.query(
            "DELETE FROM ferry.archived_jobs a USING ferry_restore r WHERE a.job_id = (r.line->'job'->>'job_id')::uuid")
        try connection.query("DELETE FROM ferry.batch_archives WHERE archive_id = $1", [archiveID])
        try connection.query(
            """
            UPDATE ferry.archives SET state = 'restored', restored_at = now(), restore_token = NULL
             WHERE archive_id = $1
            """, [archiveID])
        try connection.query("SELECT set_config('ferry.restore_token', '', true)")
    }

    /// A restore's database error as the store reports it: a duplicate or a refused value means the file is not
    /// what this database can take back.
    private static func restoreError(_ error: PostgresError, archive name: String) -> Error {
        if error.sqlState == .uniqueViolation {
            return FerryStoreError(
                .restoreConflict,
                "restoring would duplicate \(error.constraint.map { "a value of \($0)" } ?? "a unique value") (an event position or an idempotency key reused since the archive was made)",
                fix: "nothing was written; the archive stays as it is")
        }
        if error.sqlState?.errorClass == "22" || error.sqlState?.errorClass == "23" {
            // A value of the file that does not fit its column (data exception, constraint): the file is not what
            // ferry archive wrote. The server's message names the column or constraint, not the value.
            return FerryStoreError(
                .archiveFile,
                "archive \(name) holds a value PostgreSQL refuses (SQLSTATE \(error.sqlState?.code ?? "")\(error.constraint.map { ", \($0)" } ?? ""))",
                fix: "the file was not written by ferry archive or was edited: restore it from a backup; nothing was written")
        }
        return FerryStore.translate(error)
    }

    /// The refusal of an archive this database has no record of.
    public static func foreignArchiveError(_ name: String) -> FerryStoreError {
        FerryStoreError(
            .foreignArchive,
            "archive \(name) is not recorded in this database's ferry.archives: it was made by another database, or its record was lost",
            fix: "restore it into the database that made it; to restore it here anyway, pass --foreign (the file is still checked in full); nothing was written")
    }

    /// Checks the scratch table `ferry_restore` against `expected` and the shape an archive line must have.
    private static func checkRestoreContent(_ connection: PostgresConnection, archive name: String, expected: ArchiveExpectation) throws {
        let fix = "the file was edited or is not the one \(expected.source) describes: restore the file from a backup; nothing was written"
        let malformed = try connection.query(
            """
            SELECT count(*) AS malformed FROM ferry_restore
             WHERE jsonb_typeof(line->'job') IS DISTINCT FROM 'object' OR jsonb_typeof(line->'events') IS DISTINCT FROM 'array'
                OR jsonb_typeof(line->'job'->'job_id') IS DISTINCT FROM 'string' OR jsonb_array_length(line->'events') = 0
            """
        ).rows[0].decode(Int.self, column: "malformed")
        guard malformed == 0 else {
            throw FerryStoreError(.archiveFile, "\(malformed) line(s) of archive \(name) are not a job with its events", fix: fix)
        }
        let totals = try connection.query(
            """
            SELECT (SELECT count(*) FROM ferry_restore) AS jobs, count(*) AS events,
                   min((e.value->>'position')::bigint) AS first_position, max((e.value->>'position')::bigint) AS last_position,
                   count(*) FILTER (WHERE (e.value->>'job_id')::uuid IS DISTINCT FROM (r.line->'job'->>'job_id')::uuid) AS strays
              FROM ferry_restore r CROSS JOIN LATERAL jsonb_array_elements(r.line->'events') e
            """
        ).rows[0]
        let jobs = try totals.decode(Int.self, column: "jobs")
        let events = try totals.decode(Int.self, column: "events")
        let first = try totals.decode(Int?.self, column: "first_position")
        let last = try totals.decode(Int?.self, column: "last_position")
        let strays = try totals.decode(Int.self, column: "strays")
        var mismatches = [String]()
        if jobs != expected.jobs { mismatches.append("\(jobs) jobs, not \(expected.jobs)") }
        if events != expected.events { mismatches.append("\(events) events, not \(expected.events)") }
        if let want = expected.firstPosition, first != want {
            mismatches.append("first position \(first.map(String.init) ?? "none"), not \(want)")
        }
        if let want = expected.lastPosition, last != want {
            mismatches.append("last position \(last.map(String.init) ?? "none"), not \(want)")
        }
        guard mismatches.isEmpty else {
            throw FerryStoreError(
                .archiveFile, "archive \(name) holds \(mismatches.joined(separator: ", ")) as \(expected.source) says", fix: fix)
        }
        guard strays == 0 else {
            throw FerryStoreError(.archiveFile, "\(strays) event(s) of archive \(name) belong to another job than their line's", fix: fix)
        }
        let terminal = JobState.allCases.filter(\.isTerminal).map(\.rawValue)
        let unfinished = try connection.query(
            """
            SELECT count(*) OVER () AS unfinished, line->'job'->>'job_id' AS job_id,
                   coalesce(line->'job'->>'state', 'none') AS state
              FROM ferry_restore
             WHERE coalesce(line->'job'->>'state', '') <> ALL ($1::text[])
             LIMIT 1
            """, [PostgresArray(terminal)]
        ).rows.first
        if let unfinished {
            throw FerryStoreError(
                .archiveFile,
                "archive \(name) holds \(try unfinished.decode(Int.self, column: "unfinished")) unfinished job(s) (job \(try unfinished.decode(String.self, column: "job_id")) is \(try unfinished.decode(String.self, column: "state"))); an archive holds only \(terminal.joined(separator: ", ")) jobs",
                fix: fix)
        }
    }

    /// Folds the restored events (``JobFold``, as `ferry projection verify` does) and compares the result with
    /// the restored rows; throws on the first differences.
    private static func checkRestoredFold(_ connection: PostgresConnection, archive name: String) throws {
        var comparison = ProjectionComparison(limit: 3)
        var replay = ProjectionReplay(connection: connection)
        try replay.forEachRestoredChunk { replay, range in
            try replay.compare(range, into: &comparison)
        }
        guard comparison.differences.isEmpty else {
            let shown = comparison.differences.flatMap(\.lines).joined(separator: "; ")
            throw FerryStoreError(
                .archiveFile,
                "\(comparison.differences.count)\(comparison.truncated ? "+" : "") job row(s) of archive \(name) differ from the fold of their events: \(shown)",
                fix: "the file was edited: restore it from a backup; nothing was written")
        }
    }
}
