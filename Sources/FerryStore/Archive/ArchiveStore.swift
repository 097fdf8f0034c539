import FerryCore
import Foundation
import Postgres

/// The archive: finished jobs moved out of the hot tables into files, their records, and restore.
/// Reached as `store.archive`.
public struct ArchiveStore: Sendable {
    let client: PostgresClient

    /// Moves one chunk of finished jobs out of PostgreSQL, or returns `nil` when none is left.
    ///
    /// In one transaction: locks up to `limit` jobs that finished before `cutoff` (skipping jobs someone else
    /// holds, and jobs of batches that still have unfinished jobs), streams each job with its events to `sink`
    /// as one JSON line, lets `sink` make the file durable, then records the archive and a marker per job and
    /// deletes the events and projection rows. A crash before the commit leaves every row in place (the file is
    /// a `.partial` leftover); after it, the archive record names the file. Needs the schema owner.
    ///
    /// While the transaction runs it holds an advisory lock on `archiveID`, so a recovery can tell a live
    /// writer's `.partial` file from a dead one's (see ``archiveWriterIsGone(_:)``).
    public func chunk(
        archiveID: UUID, finishedBefore cutoff: Date, limit: Int,
        sink makeSink: @escaping @Sendable () throws -> any ArchiveSink
    ) async throws -> ArchivedChunk? {
        do {
            return try await client.withTransaction { connection -> ArchivedChunk? in
                guard let totals = try Self.lockChunk(connection, archiveID: archiveID, finishedBefore: cutoff, limit: limit) else {
                    return nil
                }
                let file = try Self.writeChunk(connection, sink: try makeSink())
                let chunk = ArchivedChunk(
                    archiveID: archiveID, file: file, jobs: totals.jobs, events: totals.events,
                    firstPosition: totals.firstPosition, lastPosition: totals.lastPosition)
                try Self.recordChunk(connection, chunk, finishedBefore: cutoff)
                // The markers recorded are what lets these deletes through ferry.events' guard.
                let removed = try connection.query(
                    "DELETE FROM ferry.events e USING ferry_archive_chunk c WHERE e.job_id = c.job_id"
                ).affectedRows
                guard removed == totals.events else {
                    throw FerryStoreError(
                        .versionConflict, "the archived jobs changed while their file was written",
                        fix: "run ferry archive again")
                }
                try connection.query("DELETE FROM ferry.jobs j USING ferry_archive_chunk c WHERE j.job_id = c.job_id")
                return chunk
            }
        } catch {
            throw FerryStore.translate(error)
        }
    }

    /// Takes the archive's lock and locks the chunk's jobs into the scratch table `ferry_archive_chunk`: their
    /// counts and range of positions, or `nil` when no job is left to archive.
    private static func lockChunk(
        _ connection: PostgresConnection, archiveID: UUID, finishedBefore cutoff: Date, limit: Int
    ) throws -> (jobs: Int, events: Int, firstPosition: Int, lastPosition: Int)? {
        try connection.query(
            "SELECT pg_advisory_xact_lock(hashtext('ferry.archive'), hashtext($1))", [archiveID.uuidString])
        try connection.execute(
            "CREATE TEMP TABLE ferry_archive_chunk (job_id uuid PRIMARY KEY) ON COMMIT DROP")
        // Terminal jobs only: nothing appends to them but a retry, which the row lock makes wait (and then
        // find the job archived). A batch with unfinished jobs keeps all of its jobs until it completes.
        try connection.query(
            """
            INSERT INTO ferry_archive_chunk
            SELECT j.job_id
              FROM ferry.jobs j
             WHERE j.state IN ('succeeded', 'failed', 'cancelled', 'discarded') AND j.finished_at < $1
               AND (j.batch IS NULL OR NOT EXISTS (
                     SELECT 1 FROM ferry.jobs u WHERE u.batch = j.batch AND u.state IN ('queued', 'running')))
             LIMIT $2
               FOR UPDATE OF j SKIP LOCKED
            """, [cutoff, limit])
        try connection.execute("ANALYZE ferry_archive_chunk")
        let totals = try connection.query(
            """
            SELECT (SELECT count(*) FROM ferry_archive_chunk) AS jobs, count(*) AS events, min(e.position) AS first_position,
                   max(e.position) AS last_position
              FROM ferry.events e JOIN ferry_archive_chunk c ON c.job_id = e.job_id
            """
        ).rows[0]
        let jobs = try totals.decode(Int.self, column: "jobs")
        guard jobs > 0 else { return nil }
        return (
            jobs, try totals.decode(Int.self, column: "events"),
            try totals.decode(Int?.self, column: "first_position") ?? 0, try totals.decode(Int?.self, column: "last_position") ?? 0)
    }

    /// Streams the chunk's jobs to `sink`, one line per job: its projection row and its whole stream, in version
    /// order. to_jsonb keeps every value's text exactly (timestamps with microseconds, xid8 as a string), so
    /// restore is lossless.
    private static func writeChunk(_ connection: PostgresConnection, sink: any ArchiveSink) throws -> ArchiveFileFacts {
        var sink = sink
        try connection.copyOut(
            """
            COPY (SELECT jsonb_build_object(
                             'job', to_jsonb(j),
                             'events', (SELECT jsonb_agg(to_jsonb(e) ORDER BY e.version)
                                          FROM ferry.events e WHERE e.job_id = j.job_id))
                    FROM ferry_archive_chunk c JOIN ferry.jobs j ON j.job_id = c.job_id
                   ORDER BY j.job_id) TO STDOUT
            """
        ) { row in
            guard let line = PostgresCopyRow.fields(row).first ?? nil else { return }
            try sink.write(line: Array(line.utf8))
        }
        return try sink.finish()
    }

    /// Records the archive, a marker per job and what each batch lost to it, and counts the jobs out of the totals.
    private static func recordChunk(_ connection: PostgresConnection, _ chunk: ArchivedChunk, finishedBefore cutoff: Date) throws {
        let archiveID = chunk.archiveID
        try connection.query(
            """
            INSERT INTO ferry.archives (archive_id, state, file, sha256, bytes, jobs, events, first_position,
                                        last_position, finished_before)
            VALUES ($1, 'sealed', $2, $3, $4, $5, $6, $7, $8, $9)
            """,
            [archiveID, chunk.file.path, chunk.file.sha256, chunk.file.bytes, chunk.jobs, chunk.events, chunk.firstPosition,
             chunk.lastPosition, cutoff])
        try connection.query(
            """
            INSERT INTO ferry.archived_jobs (job_id, archive_id, queue, batch, state, finished_at, bytes)
            SELECT j.job_id, $1, j.queue, j.batch, j.state, j.finished_at, j.bytes_done
              FROM ferry_archive_chunk c JOIN ferry.jobs j ON j.job_id = c.job_id
            """, [archiveID])
        // What each batch lost to this archive, so its totals can still say so (ferry.batch_archive_totals).
        try connection.query(
            """
            INSERT INTO ferry.batch_archives (batch, archive_id, jobs, bytes, unsized)
            SELECT j.batch, $1, count(*), coalesce(sum(j.bytes_done), 0), 0
              FROM ferry_archive_chunk c JOIN ferry.jobs j ON j.job_id = c.job_id
             WHERE j.batch IS NOT NULL
             GROUP BY j.batch
            """, [archiveID])
        try connection.query(
            """
            SELECT ferry.count_changes(array_agg(
                       ROW(j.job_id, j.queue, j.batch, j.state, NULL, j.bytes_done, j.bytes_total, NULL, NULL, NULL, NULL,
                           NULL, j.state = 'succeeded' AND j.result->>'skipped' = 'unchanged', NULL)::ferry.job_change))
              FROM ferry_archive_chunk c JOIN ferry.jobs j ON j.job_id = c.job_id
            """)
    }

    /// Runs `body` while holding the archive's lock (the one its writing transaction held), with the archive's
    /// record as it is once the lock is held (`nil` if none was committed). Two runs finishing the same archive
    /// (one recovering, one that just committed it) take turns, and the second finds it complete.
    public func withLock<T: Sendable>(
        _ archiveID: UUID, _ body: (ArchiveRecord?) async throws -> T
    ) async throws -> T {
        do {
            return try await client.withHeldTransaction { held in
                let record = try await held.run { connection in
                    try connection.query(
                        "SELECT pg_advisory_xact_lock(hashtext('ferry.archive'), hashtext($1))", [archiveID.uuidString])
                    return try connection.query(
                        "SELECT \(ArchiveRecord.columns) FROM ferry.archives WHERE archive_id = $1", [archiveID]
                    ).rows.first.map(ArchiveRecord.init(row:))
                }
                return try await body(record)
            }
        } catch {
            throw FerryStore.translate(error)
        }
    }

    /// Marks an archive complete once its file has its final name and its manifest.
    public func complete(_ archiveID: UUID) async throws {
        do {
            _ = try await client.withConnection { connection in
                try connection.query(
                    "UPDATE ferry.archives SET state = 'complete', completed_at = now() WHERE archive_id = $1 AND state = 'sealed'",
                    [archiveID])
            }
        } catch {
            throw FerryStore.translate(error)
        }
    }

    /// Archives, newest first; `states` narrows the list.
    public func all(states: [ArchiveRecord.State]? = nil, limit: Int = 1000) async throws -> [ArchiveRecord] {
        let filter = (states ?? [.sealed, .complete, .restored]).map(\.rawValue)
        do {
            return try await client.withConnection { connection in
                try connection.query(
                    """
                    SELECT \(ArchiveRecord.columns) FROM ferry.archives
                     WHERE state = ANY ($1::text[])
                     ORDER BY created_at DESC, archive_id DESC LIMIT $2
                    """, [PostgresArray(filter), limit]
                ).rows.map(ArchiveRecord.init(row:))
            }
        } catch {
            throw FerryStore.translate(error)
        }
    }

    /// One archive's record, if the database knows it.
    public func record(_ archiveID: UUID) async throws -> ArchiveRecord? {
        do {
            return try await client.withConnection { connection in
                try connection.query(
                    "SELECT \(ArchiveRecord.columns) FROM ferry.archives WHERE archive_id = $1", [archiveID]
                ).rows.first.map(ArchiveRecord.init(row:))
            }
        } catch {
            throw FerryStore.translate(error)
        }
    }

    /// True when no transaction is writing `archiveID` any more and none committed it: its `.partial` file is
    /// a leftover of a run that died, and its jobs are still in the log.
    public func writerIsGone(_ archiveID: UUID) async throws -> Bool {
        do {
            return try await client.withTransaction { connection in
                let free = try connection.query(
                    "SELECT pg_try_advisory_xact_lock(hashtext('ferry.archive'), hashtext($1)) AS free", [archiveID.uuidString]
                ).rows[0].decode(Bool.self, column: "free")
                guard free else { return false }
                let known = try connection.query(
                    "SELECT 1 FROM ferry.archives WHERE archive_id = $1", [archiveID]).rows
                return known.isEmpty
            }
        } catch {
            throw FerryStore.translate(error)
        }
    }

    /// Where an archived job went, or `nil` when it was never archived (or was restored), or when the login may
    /// not read `ferry.archived_job_status` (a login in no Ferry role; every Ferry role may).
    public func job(_ jobID: UUID) async throws -> ArchivedJob? {
        do {
            return try await client.withConnection { connection in
                try connection.query(
                    """
                    SELECT job_id, archive_id, file, archived_at FROM ferry.archived_job_status WHERE job_id = $1
                    """, [jobID]
                ).rows.first.map { row in
                    ArchivedJob(
                        jobID: try row.decode(UUID.self, column: "job_id"), archiveID: try row.decode(UUID.self, column: "archive_id"),
                        file: try row.decode(String.self, column: "file"), archivedAt: try row.decode(Date.self, column: "archived_at"))
                }
            }
        } catch let error as PostgresError where error.sqlState == .insufficientPrivilege {
            return nil
        } catch {
            throw FerryStore.translate(error)
        }
    }

    /// Where a batch's jobs went when none is left in PostgreSQL, or `nil` when none was archived (or all were
    /// restored, or the login may not read `ferry.archived_job_status`). Callers ask after `batch_status` found nothing.
    public func batch(_ name: String) async throws -> ArchivedBatch? {
        do {
            return try await client.withConnection { connection in
                let files = try connection.query(
                    """
                    SELECT file, count(*) AS jobs, archived_at
                      FROM ferry.archived_job_status
                     WHERE batch = $1
                     GROUP BY archive_id, file, archived_at
                     ORDER BY archived_at DESC, file
                    """, [name]
                ).rows.map { row in
                    ArchivedBatch.File(
                        file: try row.decode(String.self, column: "file"), jobs: try row.decode(Int.self, column: "jobs"),
                        archivedAt: try row.decode(Date.self, column: "archived_at"))
                }
                return files.isEmpty ? nil : ArchivedBatch(batch: name, files: files)
            }
        } catch let error as PostgresError where error.sqlState == .insufficientPrivilege {
            return nil
        } catch {
            throw FerryStore.translate(error)
        }
    }
}
