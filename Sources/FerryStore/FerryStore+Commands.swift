import FerryCore
import Foundation
import Postgres

extension FerryStore {
    /// Cancels a job or every job of a batch.
    ///
    /// Queued jobs are cancelled at once; running jobs get `cancel_requested` (workers are notified on
    /// `ferry_cancel` and stop at their next step); finished jobs are left as they are.
    public func cancel(_ target: JobFilter, requestedBy: String) async throws -> [CommandOutcome] {
        try await command(
            target,
            eligible: Self.eligibility("cancel", target)!,
            eventType: "CASE WHEN state = 'queued' THEN 'cancelled' ELSE 'cancel_requested' END",
            data: "jsonb_build_object('reason', 'cancelled by ' || $1)",
            requestedBy: requestedBy
        ) { type in type == "cancelled" ? .cancelled : .cancelRequested }
    }

    /// Puts a failed or cancelled job (or every such job of a batch) back into the queue with a `requeued` event.
    /// A discarded job goes back only when named (a job or a list of jobs): a batch retry leaves it discarded.
    /// Also takes the jobs matching a filter (``JobFilter/matching(batch:state:search:)``), with the batch's rules.
    ///
    /// `options` change provider options of every job retried (`ferry retry --option mode=overwrite`): the event
    /// carries them and the spec they make (`ferry.requeued_spec`), and nothing else of a job changes. Each job's
    /// own provider must take them as a retry may change them (`ferry.check_requeued`); when one job refuses them
    /// no job is retried and the refusal is a ``ValidationIssue`` naming the option, the job's provider and the
    /// options a retry of it changes.
    public func retry(_ target: JobFilter, requestedBy: String, options: [String: JSONValue] = [:]) async throws -> [CommandOutcome] {
        let eligible = Self.eligibility("retry", target)!
        guard !options.isEmpty else {
            return try await command(
                target, eligible: eligible, eventType: "'requeued'", data: "jsonb_build_object('by', $1::text)",
                requestedBy: requestedBy
            ) { _ in .requeued }
        }
        // `$2` is the options; the same data the raw-event check holds producers to, checked here for every role
        // (the schema's owner skips that check) before anything is appended.
        let data = "jsonb_build_object('by', $1::text, 'options', $2::jsonb, 'spec', ferry.requeued_spec(spec, $2::jsonb))"
        let isSingle: Bool = if case .job = target { true } else { false }
        let place = isSingle ? "''" : "'job ' || job_id || ': '"
        do {
            return try await command(
                target, eligible: eligible, eventType: "'requeued'", data: data, requestedBy: requestedBy,
                extraBinds: [JSONValue.object(options).jsonText],
                check: "ferry.check_requeued(kind, source, destination, spec, \(data), \(place))"
            ) { _ in .requeued }
        } catch let error as PostgresError where error.sqlState == .invalidParameterValue {
            throw Self.optionIssue(error)
        }
    }

    /// A refusal of `ferry.check_requeued` (`PLACE options.NAME: problem`, the fix in its hint) as a validation issue.
    static func optionIssue(_ error: PostgresError) -> ValidationIssue {
        let message = error.serverMessage ?? "options: refused"
        var field = "options"
        var problem = message
        if let column = error.column, let range = message.range(of: "options.\(column): ") ?? message.range(of: "\(column): ") {
            field = String(message[..<range.upperBound].dropLast(2))
            problem = String(message[range.upperBound...])
        }
        var fix = error.hint ?? "check the option with ferry enqueue --help"
        if fix.hasSuffix(".") { fix.removeLast() }
        if let first = fix.first { fix = first.lowercased() + fix.dropFirst() }
        return ValidationIssue(field: field, problem: problem, fix: fix)
    }

    /// The provider options retries of a job changed (`ferry retry --option`), later retries winning: what
    /// `ferry status JOB` shows beside the job. Empty when no retry changed any.
    public func retryOptions(of jobID: UUID) async throws -> [String: JSONValue] {
        do {
            return try await client.withConnection { connection in
                var merged = [String: JSONValue]()
                for row in try connection.query(
                    """
                    SELECT data->'options' AS options FROM ferry.job_timeline
                     WHERE job_id = $1::uuid AND type = 'requeued' AND data ? 'options' ORDER BY version
                    """, [jobID]
                ).rows {
                    let text = try row.decode(String?.self, column: "options")
                    for (name, value) in (try? JSONValue.parse(text ?? "{}"))?.objectValue ?? [:] { merged[name] = value }
                }
                return merged
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Gives up on a failed job (or every failed job of a batch) with a `discarded` event: it stays finished with
    /// its error, leaves the failures to act on and counts as discarded, not failed. Jobs in other states are left
    /// as they are (cancel ends a job that has not finished).
    public func discard(_ target: JobFilter, requestedBy: String) async throws -> [CommandOutcome] {
        try await command(
            target,
            eligible: Self.eligibility("discard", target)!,
            eventType: "'discarded'",
            data: "jsonb_build_object('by', $1::text)",
            requestedBy: requestedBy
        ) { _ in .discarded }
    }

    /// Appends `eventType` with `data` to every job of `target` in state `eligible`. `extraBinds` follow who asked
    /// (`$1`) as `$2`…; `check`, an expression over each such job's row, is evaluated for all of them first (it
    /// raises to refuse: then nothing is appended), and with it `data` may read the job's `spec`.
    private func command(
        _ target: JobFilter, eligible: String, eventType: String, data: String, requestedBy: String,
        extraBinds: [any PostgresBindable] = [], check: String? = nil,
        action: @escaping @Sendable (String) -> CommandOutcome.Action
    ) async throws -> [CommandOutcome] {
        // `$1` is who asked (in `data`), then `extraBinds`; the filter's parameters follow.
        let (condition, filterBinds) = target.condition(from: 2 + extraBinds.count)
        // Lock the candidates so a concurrent claim or finish cannot slip between reading and appending.
        let sql = """
            WITH target AS (
                SELECT job_id, version, state, cancel_requested\(check == nil ? "" : ", spec") FROM ferry.jobs
                 WHERE \(condition) AND \(eligible)
                 ORDER BY job_id FOR UPDATE
            )
            INSERT INTO ferry.events (job_id, version, type, data)
            SELECT job_id, version + 1, \(eventType), \(data) FROM target
            RETURNING job_id, type
            """
        let binds: [any PostgresBindable] = [requestedBy] + extraBinds + filterBinds
        // The same rows, locked in the same order, checked before the append.
        let checkSQL = check.map { check in
            "SELECT \(check) FROM ferry.jobs WHERE \(condition) AND \(eligible) ORDER BY job_id FOR UPDATE"
        }
        let isSingle: Bool = if case .job = target { true } else { false }
        // Named jobs are each reported (unchanged ones with their state); a batch, queue or everything reports
        // only the jobs the command changed, so retrying a finished batch of 100,000 jobs lists none of them.
        let (ownCondition, ownBinds) = target.condition(from: 1)
        let (containerCondition, containerBinds) = target.container.condition(from: 1)
        do {
            return try await client.withTransaction { connection in
                var changed = [UUID: CommandOutcome.Action]()
                if let checkSQL { _ = try connection.query(checkSQL, binds) }
                for row in try connection.query(sql, binds).rows {
                    changed[try row.decode(UUID.self, column: "job_id")] = action(try row.decode(String.self, column: "type"))
                }
                // Read after the append: the projection already holds each job's new state. Ids are UUIDv7, so
                // this is enqueue order.
                let all = target.isNamed
                    ? try connection.query("SELECT job_id, state FROM ferry.jobs WHERE \(ownCondition) ORDER BY job_id", ownBinds)
                    : try connection.query(
                        "SELECT job_id, state FROM ferry.jobs WHERE job_id = ANY ($1::uuid[]) ORDER BY job_id",
                        [PostgresArray(Array(changed.keys))])
                let exists = try !all.rows.isEmpty
                    || connection.query("SELECT 1 FROM ferry.jobs WHERE \(containerCondition) LIMIT 1", containerBinds).rows.count > 0
                if !exists {
                    throw FerryStoreError(
                        .notFound, isSingle ? "no such job" : "no jobs match",
                        fix: "check the id or batch name with ferry status")
                }
                return try all.rows.map { row in
                    let id = try row.decode(UUID.self, column: "job_id")
                    return CommandOutcome(jobID: id, action: changed[id] ?? .unchanged, state: try row.decode(String.self, column: "state"))
                }
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Appends one event with optimistic concurrency: it is stored only if the job's stream is at
    /// `expectedVersion`. Throws `.versionConflict` when another writer got there first.
    @discardableResult
    public func append(
        jobID: UUID, expectedVersion: Int, type: JobEventType, data: JSONValue = .object([:])
    ) async throws -> Int {
        let version = expectedVersion + 1
        do {
            try await client.withConnection { connection in
                _ = try connection.query(
                    "INSERT INTO ferry.events (job_id, version, type, data) VALUES ($1::uuid, $2, $3, $4::jsonb)",
                    [jobID, version, type.rawValue, data.jsonText])
            }
            return version
        } catch {
            throw Self.translate(error)
        }
    }
}
