import FerryCore

/// How one event changes a replayed row: the Swift spelling of `ferry.apply_event` and `ferry.job_from_enqueued`
/// (migrations/definitions/305_apply_event.sql and 300_job_from_enqueued.sql), rule for rule and in the same
/// order, so a refusal carries the SQLSTATE the database raises for the same event. The state machine is
/// ``JobTransition``'s, shared with the in-memory store; this type keeps the row's side (versions, casts, NOT NULL).
/// `ferry projection verify` and `rebuild` fold with it; the property test in FerryStoreTests
/// (JobFoldPropertyTests) appends random histories through the database and checks both agree.
///
/// The columns of a new job are `ferry.job_from_enqueued`'s expressions, evaluated by the server in the replay
/// statement (``ReplayQueries/events(_:relation:order:)``), so only the NOT NULL constraints of `ferry.jobs`
/// are checked here.
enum JobFold {
    /// The job after `event`, or the refusal `apply_event` raises (then the job is unchanged).
    static func apply(_ current: FoldedJob?, _ event: ReplayEvent, in arena: borrowing ReplayArena) throws(JobFoldError) -> FoldedJob {
        guard let type = event.type else {
            throw JobFoldError(.unknownType, "unknown event type \(arena.string(event.typeName) ?? "null")")
        }
        let at = event.recordedAt
        if type == .enqueued {
            if current != nil { throw JobFoldError(.transitionNotAllowed, "job already exists") }
            if event.version != 1 {
                throw JobFoldError(.version, "enqueued must be version 1, not \(event.version)")
            }
            return try created(event, at: at, in: arena)
        }
        guard var job = current else { throw JobFoldError(.unknownJob, "job does not exist") }
        if event.version != job.version + 1 {
            throw JobFoldError(.version, "event version \(event.version) does not follow version \(job.version)")
        }

        // Cast only where apply_event casts it, so a lease that is not a number fails exactly where it does there.
        let eventLease = JobTransition.readsLease(type, from: job.state) ? try lease(event, in: arena) : nil
        let transition = try JobTransition.of(
            type, from: job.state, lease: job.lease, cancelRequested: job.cancelRequested, eventLease: eventLease)
        job.version = event.version
        job.updatedAt = at
        try apply(transition, event, to: &job, at: at, in: arena)
        // retry_scheduled and deferred without run_at: the UPDATE of ferry.jobs fails on the NOT NULL column.
        if job.runAt.isNull { throw JobFoldError(.notNull, "null value in column \"run_at\" of relation \"jobs\"") }
        return job
    }

    /// Writes `transition` into the row, taking the values it names from `event`.
    private static func apply(
        _ transition: JobTransition, _ event: ReplayEvent, to job: inout FoldedJob, at: ReplayText, in arena: borrowing ReplayArena
    ) throws(JobFoldError) {
        job.state = transition.state
        switch transition.attempt {
        case .keep: break
        case .next: job.attempt += 1
        case .giveBack: job.attempt -= 1
        case .reset: job.attempt = 0
        }
        if transition.claims {
            job.lease += 1
            job.worker = event.text
            if job.startedAt.isNull { job.startedAt = at }
        }
        job.worker = value(transition.worker, job.worker, event: .null, at: at)
        job.runAt = value(transition.runAt, job.runAt, event: event.runAt, at: at)
        job.lastError = value(transition.lastError, job.lastError, event: event.text, at: at)
        job.finishedAt = value(transition.finishedAt, job.finishedAt, event: .null, at: at)
        if let requested = transition.cancelRequested { job.cancelRequested = requested }
        if transition.takesBytes {
            job.bytesDone = try bigint(event.bytesDone, in: arena) ?? job.bytesDone
            job.bytesTotal = try bigint(event.bytesTotal, in: arena) ?? job.bytesTotal
        }
        if transition.takesSession && event.hasSession { job.session = event.json }
        if transition.takesResult { job.result = event.json }
        // coalesce(data->…, column) for each: a resolution only adds what the worker settled.
        let settled = event.enqueued
        if transition.takesResolution {
            if !settled.source.isNull { job.source = settled.source }
            if !settled.destination.isNull { job.destination = settled.destination }
            if !settled.account.isNull { job.account = settled.account }
            job.bytesTotal = try bigint(settled.bytesTotal, in: arena) ?? job.bytesTotal
        }
        // coalesce(data->'spec', spec): a resolution's spec, or a retry's with changed provider options.
        if (transition.takesResolution || transition.takesSpec) && !settled.spec.isNull { job.spec = settled.spec }
    }

    private static func value(_ change: JobTransition.Change, _ current: ReplayText, event: ReplayText, at: ReplayText) -> ReplayText {
        switch change {
        case .keep: current
        case .clear: .null
        case .event: event
        case .eventIfPresent: event.isNull ? current : event
        case .now: at
        }
    }

    /// The columns of `ferry.job_from_enqueued` (evaluated by the server) checked against ferry.jobs' NOT NULL columns.
    private static func created(_ event: ReplayEvent, at: ReplayText, in arena: borrowing ReplayArena) throws(JobFoldError) -> FoldedJob {
        let columns = event.enqueued
        // job_from_enqueued's casts, in column order; then the INSERT's NOT NULL checks.
        let priority = try integer(columns.priority, in: arena, bits: 16)
        let maxAttempts = try integer(columns.maxAttempts, in: arena, bits: 32)
        let bytesTotal = try integer(columns.bytesTotal, in: arena, bits: 64)
        if columns.kind.isNull || columns.queue.isNull || columns.priority.isNull || columns.maxAttempts.isNull
            || columns.source.isNull || columns.destination.isNull {
            try notNull(columns)
        }
        guard let priority, let maxAttempts else { throw JobFoldError(.notNull, "null value in a NOT NULL column of relation \"jobs\"") }
        return FoldedJob(
            jobID: event.jobID, version: event.version, kind: columns.kind, queue: columns.queue, batch: columns.batch,
            priority: priority, state: .queued, attempt: 0, maxAttempts: maxAttempts, lease: 0,
            worker: .null, account: columns.account, source: columns.source, destination: columns.destination,
            idempotencyKey: columns.idempotencyKey, spec: columns.spec, metadata: columns.metadata,
            runAt: columns.runAt, cancelRequested: false, bytesDone: 0, bytesTotal: bytesTotal, session: .null,
            lastError: .null, result: .null, enqueuedAt: at, startedAt: .null, finishedAt: .null, updatedAt: at)
    }

    /// The first NOT NULL column of ferry.jobs (in column order) a new job leaves empty.
    private static func notNull(_ columns: ReplayEvent.EnqueuedColumns) throws(JobFoldError) {
        for (name, value) in [("kind", columns.kind), ("queue", columns.queue), ("priority", columns.priority),
                              ("max_attempts", columns.maxAttempts), ("source", columns.source),
                              ("destination", columns.destination)] where value.isNull {
            throw JobFoldError(.notNull, "null value in column \"\(name)\" of relation \"jobs\"")
        }
    }

    /// `(data->>'lease')::bigint`; `nil` for NULL (which is distinct from every lease).
    private static func lease(_ event: ReplayEvent, in arena: borrowing ReplayArena) throws(JobFoldError) -> Int64? {
        try bigint(event.lease, in: arena)
    }

    private static func bigint(_ text: ReplayText, in arena: borrowing ReplayArena) throws(JobFoldError) -> Int64? {
        try integer(text, in: arena, bits: 64)
    }

    /// `text::smallint`, `::integer` or `::bigint`; `nil` for NULL.
    private static func integer(_ text: ReplayText, in arena: borrowing ReplayArena, bits: Int) throws(JobFoldError) -> Int64? {
        if text.isNull { return nil }
        return try arena.withBytes(text) { bytes throws(JobFoldError) in try CopyText.castInteger(bytes, bits: bits) }
    }
}
