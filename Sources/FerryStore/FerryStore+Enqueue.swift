import FerryCore
import Foundation
import Postgres

extension FerryStore {
    /// Enqueues validated jobs in one transaction: all of them or none.
    ///
    /// The `enqueued` events are streamed with `COPY` (no round trip per job); the projection trigger creates the
    /// job rows in the same statement. Jobs whose idempotency key already exists are not written again: their
    /// existing ids come back with `created == false`. Requests repeating a key within the batch share one job.
    public func enqueue(_ specs: [JobSpec], lines: [Int?]? = nil) async throws -> [EnqueueOutcome] {
        guard !specs.isEmpty else { return [] }
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await client.withTransaction { connection in
                    try Self.enqueue(specs, lines: lines, on: connection)
                }
            } catch let error as PostgresError
                where error.sqlState == .uniqueViolation && error.constraint == "jobs_idempotency_key" && attempt < 5
            {
                // A concurrent producer committed the same key between our lookup and our insert: look again.
                continue
            } catch {
                throw Self.translate(error)
            }
        }
    }

    /// Runs `body` with a bulk enqueue whose chunks all commit together when `body` returns, or not at all when it
    /// throws. Use it when the jobs do not fit in memory at once (`ferry enqueue --from` of any size).
    ///
    /// A concurrent producer may commit an idempotency key between a chunk's lookup and its insert; the error is
    /// then `FerryStoreError.Code.keyConflict` and nothing was written: running the same input again is safe.
    public func withBulkEnqueue<T: Sendable>(_ body: (BulkEnqueue) async throws -> T) async throws -> T {
        do {
            return try await client.withHeldTransaction { transaction in
                try await body(BulkEnqueue(transaction: transaction))
            }
        } catch let error as PostgresError
            where error.sqlState == .uniqueViolation && error.constraint == "jobs_idempotency_key"
        {
            throw FerryStoreError(
                .keyConflict, "another producer enqueued one of these idempotency keys at the same moment; nothing was enqueued",
                fix: "run the same command again: keys that exist now return their existing jobs")
        } catch {
            throw Self.translate(error)
        }
    }

    static func enqueue(_ specs: [JobSpec], lines: [Int?]?, on connection: PostgresConnection) throws -> [EnqueueOutcome] {
        try enqueue(EnqueueChunk(specs: specs, lines: lines), on: connection)
    }

    static func enqueue(_ chunk: EnqueueChunk, on connection: PostgresConnection) throws -> [EnqueueOutcome] {
        var chunk = chunk
        var specs = chunk.specs
        let lines = chunk.lines
        if try settleOnlyAccounts(&specs, lines: lines, on: connection) {
            // The account is part of the event: render again.
            chunk = EnqueueChunk(specs: specs, lines: lines)
        }
        try checkAccounts(specs, lines: lines, on: connection)
        let existing = try existingKeys(specs, on: connection)
        let (outcomes, toWrite) = try keyedOutcomes(specs, lines: lines, existing: existing)
        guard !toWrite.isEmpty else { return outcomes }
        try connection.copyIn("COPY ferry.events (job_id, version, type, data) FROM STDIN") { writer in
            for index in toWrite {
                try writer.writeEncodedRow(chunk.rows[index])
            }
        }
        return outcomes
    }

    /// `line N: ` for the request at `index` when the requests came from lines, else nothing.
    private static func place(_ index: Int?, _ lines: [Int?]?) -> String {
        (index.flatMap { lines?[$0] }).map { "line \($0): " } ?? ""
    }

    /// Names the account of jobs whose provider takes the only account of its kind when none is named (Flickr's
    /// API key); true when any spec changed.
    private static func settleOnlyAccounts(_ specs: inout [JobSpec], lines: [Int?]?, on connection: PostgresConnection) throws -> Bool {
        let unnamed = specs.indices.filter { specs[$0].account == nil && specs[$0].usesOnlyAccount && specs[$0].accountProvider != nil }
        guard !unnamed.isEmpty else { return false }
        var only = [String: String]()
        for provider in Set(unnamed.compactMap { specs[$0].accountProvider }).sorted() {
            let found = try connection.query(
                "SELECT name FROM ferry.accounts WHERE provider = $1 AND status <> 'revoked' ORDER BY name LIMIT 2", [provider])
            let names = try found.rows.map { try $0.decode(String.self, column: "name") }
            guard names.count == 1 else {
                let first = unnamed.first { specs[$0].accountProvider == provider }
                throw FerryStoreError(
                    .unknownAccount,
                    place(first, lines) + (names.isEmpty ? "no \(provider) account to use" : "several \(provider) accounts; say which"),
                    fix: names.isEmpty
                        ? "add one with ferry account add NAME --provider \(provider) (see ferry account add --help)"
                        : "pass --account NAME (or \"account\" in the line)")
            }
            only[provider] = names[0]
        }
        for index in unnamed { specs[index].account = only[specs[index].accountProvider!] }
        return true
    }

    /// Every named account exists and is of the provider its job needs. A copy names two accounts: the
    /// destination's (the job's) and the source's.
    private static func checkAccounts(_ specs: [JobSpec], lines: [Int?]?, on connection: PostgresConnection) throws {
        let accounts = Set(specs.compactMap(\.account) + specs.compactMap(\.sourceAccount))
        guard !accounts.isEmpty else { return }
        let found = try connection.query(
            "SELECT name, provider FROM ferry.accounts WHERE name = ANY($1::text[])", [PostgresArray(Array(accounts))])
        var providers = [String: String]()
        for row in found.rows { providers[try row.decode(String.self, column: "name")] = try row.decode(String.self, column: "provider") }
        if let missing = accounts.subtracting(providers.keys).sorted().first {
            let index = specs.firstIndex { $0.account == missing || $0.sourceAccount == missing }
            let kind = index.flatMap { specs[$0].account == missing ? specs[$0].accountProvider : specs[$0].sourceAccountProvider } ?? "PROVIDER"
            throw FerryStoreError(
                .unknownAccount,
                place(index, lines) + "unknown account '\(missing)'",
                fix: "add it with ferry account add \(missing) --provider \(kind) …, or check the name with ferry account list")
        }
        for (index, spec) in specs.enumerated() {
            for (account, wanted) in [(spec.account, spec.accountProvider), (spec.sourceAccount, spec.sourceAccountProvider)] {
                guard let account, let provider = providers[account], let wanted else { continue }
                if provider != wanted {
                    throw FerryStoreError(
                        .unknownAccount, place(index, lines) + "account '\(account)' is a \(provider) account, not \(wanted)",
                        fix: "name a \(wanted) account (see ferry account list)")
                }
            }
        }
    }

    /// Keys that exist: the job, and the fingerprint of the arguments it was enqueued with.
    private static func existingKeys(
        _ specs: [JobSpec], on connection: PostgresConnection
    ) throws -> [String: (jobID: UUID, fingerprint: String?)] {
        var existing = [String: (jobID: UUID, fingerprint: String?)]()
        let keys = Array(Set(specs.compactMap(\.idempotencyKey)))
        guard !keys.isEmpty else { return existing }
        let found = try connection.query(
            """
            SELECT j.idempotency_key, j.job_id, e.data->>'fingerprint' AS fingerprint
              FROM ferry.jobs j
              LEFT JOIN ferry.events e ON e.job_id = j.job_id AND e.version = 1
             WHERE j.idempotency_key = ANY($1::text[])
            """,
            [PostgresArray(keys)])
        for row in found.rows {
            existing[try row.decode(String.self, column: "idempotency_key")] =
                (try row.decode(UUID.self, column: "job_id"), try row.decode(String?.self, column: "fingerprint"))
        }
        return existing
    }

    /// Each request's outcome, and the indices of the jobs to write (new keys, or none); requests repeating a key
    /// share its job, and a key reused with other arguments is refused.
    private static func keyedOutcomes(
        _ specs: [JobSpec], lines: [Int?]?, existing: [String: (jobID: UUID, fingerprint: String?)]
    ) throws -> (outcomes: [EnqueueOutcome], toWrite: [Int]) {
        var existing = existing
        var outcomes = [EnqueueOutcome]()
        outcomes.reserveCapacity(specs.count)
        var toWrite = [Int]()
        toWrite.reserveCapacity(specs.count)
        for (index, spec) in specs.enumerated() {
            let line = lines?[index]
            guard let key = spec.idempotencyKey else {
                outcomes.append(EnqueueOutcome(jobID: spec.jobID, created: true, line: line, idempotencyKey: nil))
                toWrite.append(index)
                continue
            }
            let fingerprint = spec.argumentsFingerprint
            if let (id, recorded) = existing[key] {
                // Jobs enqueued before fingerprints were kept have none, and ferry.enqueue (SQL) fingerprints the
                // request as given, before a provider settles it: both count as the same request. A child a
                // running job found (`parent`) is keyed by the work itself (a tree's file at one version): found
                // again by a run with other settings (a copy again with --option mode=overwrite), it is that job.
                if let recorded, !recorded.hasPrefix("sql:"), recorded != fingerprint, spec.details["parent"] == nil {
                    throw FerryStoreError(
                        .keyReused,
                        place(index, lines) + "the idempotency key '\(key)' belongs to job \(id.uuidString.lowercased()), which was enqueued with different arguments; nothing was enqueued",
                        fix: "give this job a key of its own, or repeat the original arguments to get the existing job (ferry status \(id.uuidString.lowercased()) shows them)")
                }
                outcomes.append(EnqueueOutcome(jobID: id, created: false, line: line, idempotencyKey: key))
                continue
            }
            existing[key] = (spec.jobID, fingerprint)
            outcomes.append(EnqueueOutcome(jobID: spec.jobID, created: true, line: line, idempotencyKey: key))
            toWrite.append(index)
        }
        return (outcomes, toWrite)
    }
}
