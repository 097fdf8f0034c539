import FerryCore

/// How one event changes a job: the Swift spelling of `ferry.apply_event` and `ferry.job_from_enqueued`
/// (migrations/definitions/305_apply_event.sql and 300_job_from_enqueued.sql), rule for rule and in the same
/// order, so a refusal carries the SQLSTATE the database raises for the same event. `ferry projection verify` and
/// `rebuild` fold with it; the property test in FerryStoreTests (JobFoldPropertyTests) appends random histories
/// through the database and checks both agree.
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

        // `state = 'running' AND lease IS NOT DISTINCT FROM j.lease`: the lease is cast only for a running job.
        var claimIsCurrent = false
        if job.state == .running { claimIsCurrent = try lease(event, in: arena) == job.lease }
        if type.requiresLease && !claimIsCurrent {
            if job.state != .running {
                throw JobFoldError(.staleLease, "\(type.rawValue) is not allowed while the job is \(job.state.rawValue)")
            }
            throw JobFoldError(.staleLease, "\(type.rawValue) carries lease \(arena.string(event.lease) ?? "none"), but the current lease is \(job.lease)")
        }

        job.version = event.version
        job.updatedAt = at
        switch type {
        case .enqueued:
            break  // handled above
        case .claimed, .progress, .retryScheduled, .deferred, .released, .rescued, .succeeded, .failed:
            try applyAttemptEvent(type, event, to: &job, at: at, in: arena)
        case .cancelRequested, .cancelled, .discarded, .requeued, .resolved:
            try applyControlEvent(type, event, to: &job, at: at, claimIsCurrent: claimIsCurrent, in: arena)
        }

        // A cancel requested while running wins at the next point the job would wait again.
        if job.state == .queued && job.cancelRequested {
            job.state = .cancelled
            job.finishedAt = at
        }
        // retry_scheduled and deferred without run_at: the UPDATE of ferry.jobs fails on the NOT NULL column.
        if job.runAt.isNull { throw JobFoldError(.notNull, "null value in column \"run_at\" of relation \"jobs\"") }
        return job
    }

    /// The events of an attempt, written by the worker that holds it: claims, progress and outcomes.
    private static func applyAttemptEvent(
        _ type: JobEventType, _ event: ReplayEvent, to job: inout FoldedJob, at: ReplayText, in arena: borrowing ReplayArena
    ) throws(JobFoldError) {
        switch type {
        case .claimed:
            guard job.state == .queued else {
                throw JobFoldError(.transitionNotAllowed, "cannot be claimed while \(job.state.rawValue)")
            }
            guard try lease(event, in: arena) == job.lease + 1 else {
                throw JobFoldError(.staleLease, "claim must carry lease \(job.lease + 1)")
            }
            job.state = .running
            job.attempt += 1
            job.lease += 1
            job.worker = event.text
            if job.startedAt.isNull { job.startedAt = at }
        case .progress:
            job.bytesDone = try bigint(event.bytesDone, in: arena) ?? job.bytesDone
            job.bytesTotal = try bigint(event.bytesTotal, in: arena) ?? job.bytesTotal
            if event.hasSession { job.session = event.json }
        case .retryScheduled:
            job.state = .queued
            job.worker = .null
            job.runAt = event.runAt
            job.lastError = event.text
        case .deferred:
            job.state = .queued
            job.worker = .null
            job.attempt -= 1
            job.runAt = event.runAt
            job.lastError = event.text
        case .released:
            job.state = .queued
            job.worker = .null
            job.attempt -= 1
            job.runAt = at
        case .rescued:
            job.state = .queued
            job.worker = .null
            job.runAt = at
            job.lastError = event.text
        case .succeeded:
            job.state = .succeeded
            job.worker = .null
            job.finishedAt = at
            // An earlier attempt's error stays in the history, not on a job that succeeded.
            job.lastError = .null
            job.bytesDone = try bigint(event.bytesDone, in: arena) ?? job.bytesDone
            job.bytesTotal = try bigint(event.bytesTotal, in: arena) ?? job.bytesTotal
            job.result = event.json
        case .failed:
            job.state = .failed
            job.worker = .null
            job.finishedAt = at
            job.lastError = event.text
        default:
            break
        }
    }

    /// The events that steer a job from outside its attempt: cancel, discard, retry, and the worker's resolution.
    private static func applyControlEvent(
        _ type: JobEventType, _ event: ReplayEvent, to job: inout FoldedJob, at: ReplayText, claimIsCurrent: Bool,
        in arena: borrowing ReplayArena
    ) throws(JobFoldError) {
        switch type {
        case .cancelRequested:
            guard job.state == .running else {
                throw JobFoldError(.transitionNotAllowed, "cancel can only be requested while running, not \(job.state.rawValue)")
            }
            job.cancelRequested = true
        case .cancelled:
            if job.state == .running && !claimIsCurrent {
                throw JobFoldError(.staleLease, "cancelled carries a stale lease")
            } else if job.state != .queued && job.state != .running {
                throw JobFoldError(.transitionNotAllowed, "cannot be cancelled while \(job.state.rawValue)")
            }
            job.state = .cancelled
            job.worker = .null
            job.finishedAt = at
            if !event.text.isNull { job.lastError = event.text }
        case .discarded:
            guard job.state == .failed else {
                throw JobFoldError(.transitionNotAllowed, "only failed jobs can be discarded, this one is \(job.state.rawValue)")
            }
            job.state = .discarded
        case .requeued:
            guard job.state == .failed || job.state == .cancelled || job.state == .discarded else {
                throw JobFoldError(
                    .transitionNotAllowed, "only failed, cancelled or discarded jobs can be retried, this one is \(job.state.rawValue)")
            }
            job.state = .queued
            job.attempt = 0
            job.runAt = at
            job.finishedAt = .null
            job.cancelRequested = false
            // coalesce(data->'spec', spec): a retry with changed provider options carries the spec they make.
            if !event.enqueued.spec.isNull { job.spec = event.enqueued.spec }
        case .resolved:
            // coalesce(data->…, column) for each: a resolution only adds what the worker settled.
            let settled = event.enqueued
            if !settled.source.isNull { job.source = settled.source }
            if !settled.destination.isNull { job.destination = settled.destination }
            if !settled.account.isNull { job.account = settled.account }
            if !settled.spec.isNull { job.spec = settled.spec }
            job.bytesTotal = try bigint(settled.bytesTotal, in: arena) ?? job.bytesTotal
        default:
            break
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
