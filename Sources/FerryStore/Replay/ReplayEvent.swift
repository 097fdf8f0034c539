import FerryCore

/// One event as the replay statement sends it: the fields its type uses, extracted and cast by the server
/// (see ``ReplayQueries/events``), as slices of the chunk's ``ReplayArena``.
struct ReplayEvent {
    var jobID: ReplayText
    var version: Int64
    /// `nil` for a type Ferry does not know (refused with FY005).
    var type: JobEventType?
    var typeName: ReplayText
    var recordedAt: ReplayText
    /// `data->>'lease'`, uncast: the fold casts it only where `apply_event` does, with the same errors.
    var lease: ReplayText
    /// claimed: worker; retry_scheduled and failed: error; deferred, rescued and cancelled: reason.
    var text: ReplayText
    /// progress and succeeded: `data->>'bytes_done'` and `data->>'bytes_total'`, uncast.
    var bytesDone: ReplayText
    var bytesTotal: ReplayText
    /// progress: whether the data has a `session` key.
    var hasSession: Bool
    /// progress: the session, succeeded: the result (JSON null as NULL).
    var json: ReplayText
    /// retry_scheduled and deferred: `(data->>'run_at')::timestamptz`.
    var runAt: ReplayText
    /// enqueued: the columns `ferry.job_from_enqueued` makes (NULL otherwise).
    var enqueued: EnqueuedColumns

    /// The columns of a new job, as `ferry.job_from_enqueued` makes them.
    struct EnqueuedColumns {
        var kind, queue, batch, priority, maxAttempts, account, source, destination, idempotencyKey: ReplayText
        var spec, metadata, runAt, bytesTotal: ReplayText
    }

    /// Number of fields in a row of ``ReplayQueries/events``.
    static let fieldCount = 24
}
