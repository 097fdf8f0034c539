import FerryCore
@testable import FerryStore
import FerryTestSupport
import Foundation
import Postgres

/// Runs candidate events through both definitions of a job's life: `JobFold` in Swift (fed by the very statement
/// verify streams events with) and the database's append path (the projection trigger, `ferry.apply_event`).
enum FoldHarness {
    /// What each side decided: per candidate, `nil` when accepted or the SQLSTATE of the refusal.
    struct Result {
        var swiftCodes: [String?]
        var sqlCodes: [String?]
        /// Jobs whose final Swift row differs from the stored one ("job …: columns", or a missing side).
        var rowDifferences: [String]
    }

    static let setup = """
        CREATE TABLE IF NOT EXISTS public.candidates (
            seq integer PRIMARY KEY, job_id uuid NOT NULL, version integer NOT NULL, type text NOT NULL,
            data jsonb NOT NULL, recorded_at timestamptz NOT NULL);
        TRUNCATE public.candidates;
        CREATE OR REPLACE FUNCTION public.append_candidates() RETURNS TABLE (seq integer, code text)
        LANGUAGE plpgsql AS $$
        DECLARE
            c record;
        BEGIN
            FOR c IN SELECT * FROM public.candidates ORDER BY 1 LOOP
                seq := c.seq;
                BEGIN
                    INSERT INTO ferry.events (job_id, version, type, data, recorded_at)
                    VALUES (c.job_id, c.version, c.type, c.data, c.recorded_at);
                    code := NULL;
                EXCEPTION WHEN OTHERS THEN
                    code := SQLSTATE;
                END;
                RETURN NEXT;
            END LOOP;
        END
        $$;
        """

    /// Folds `candidates` (grouped by job, in order) in Swift; when `append`, also appends each one in its own
    /// statement and compares the final rows with ferry.jobs.
    static func run(_ candidates: [CandidateEvent], db: TestDatabase, append: Bool = true) async throws -> Result {
        let client = db.client(poolSize: 1)
        defer { client.close() }
        return try await client.withConnection { connection in
            try connection.execute(setup)
            try connection.copyIn("COPY public.candidates (seq, job_id, version, type, data, recorded_at) FROM STDIN") { writer in
                for (index, event) in candidates.enumerated() {
                    try writer.writeRow([String(index), event.jobID.uuidString, String(event.version), event.type, event.data, event.recordedAt])
                }
            }
            var arena = ReplayArena()
            var eventData = EventData()
            var swiftCodes = [String?]()
            var finals = [String: FoldedJob]()
            var currentID: String?
            var current: FoldedJob?
            var stored = Set<Int64>()
            try connection.copyOut(ReplayQueries.events(.all, relation: "public.candidates", order: "e.seq")) { row in
                try arena.appendRow(row)
                let event = try ReplayEvent(&arena, data: &eventData)
                let id = arena.string(event.jobID)!
                if id != currentID {
                    if let currentID, let current { finals[currentID] = current }
                    currentID = id
                    current = nil
                    stored = []
                }
                // What the log decides before apply_event runs: the stream-version key refuses a version that
                // exists, and the trigger refuses an enqueued event that is not version 1 before anything else.
                if stored.contains(event.version) {
                    swiftCodes.append("23505")
                } else if event.type == .enqueued && event.version != 1 {
                    swiftCodes.append("FY003")
                } else {
                    do throws(JobFoldError) {
                        current = try JobFold.apply(current, event, in: arena)
                        stored.insert(event.version)
                        swiftCodes.append(nil)
                    } catch {
                        swiftCodes.append(error.sqlState)
                    }
                }
            }
            if let currentID, let current { finals[currentID] = current }
            guard append else { return Result(swiftCodes: swiftCodes, sqlCodes: [], rowDifferences: []) }

            let sqlCodes = try connection.query("SELECT code FROM public.append_candidates() ORDER BY seq").rows
                .map { try $0.decode(String?.self, at: 0) }
            var rowDifferences = [String]()
            var fields = [ReplayText]()
            try connection.copyOut(ReplayQueries.jobs(.all)) { row in
                fields.removeAll()
                ReplayArena.split(row, count: row.count - 1, base: 0, into: &fields)
                let id = CopyText.unescape(UnsafeRawBufferPointer(rebasing: row[Int(fields[0].offset)..<Int(fields[0].offset + fields[0].count)]))
                guard let folded = finals.removeValue(forKey: id) else {
                    rowDifferences.append("job \(id): stored, but the Swift fold has no row")
                    return
                }
                let columns = folded.differences(from: row, fields: fields, in: arena)
                if !columns.isEmpty {
                    rowDifferences.append("job \(id): " + columns.map { column in
                        let field = fields[column.rawValue]
                        let storedText = field.isNull ? nil : CopyText.unescape(UnsafeRawBufferPointer(rebasing: row[Int(field.offset)..<Int(field.offset + field.count)]))
                        return "\(column.name) stored \(column.render(storedText)) folded \(column.render(folded.value(column, in: arena)))"
                    }.joined(separator: ", "))
                }
            }
            rowDifferences += finals.keys.sorted().map { "job \($0): folded in Swift, but not stored" }
            return Result(swiftCodes: swiftCodes, sqlCodes: sqlCodes, rowDifferences: rowDifferences)
        }
    }
}
