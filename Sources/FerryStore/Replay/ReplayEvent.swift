import FerryCore

/// One event as the fold reads it: the fields its type uses, as slices of the chunk's ``ReplayArena`` in COPY
/// text form (taken from the data's jsonb text, see ``EventData``; times cast by the server).
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
    /// retry_scheduled and deferred: `(data->>'run_at')::timestamptz`, cast by the server.
    var runAt: ReplayText
    /// enqueued: the columns `ferry.job_from_enqueued` makes (NULL otherwise).
    var enqueued: EnqueuedColumns

    /// The inputs of `ferry.job_from_enqueued`: `data->>'…'` texts (`priority`, `max_attempts` and `bytes_total`
    /// still uncast), `spec` and `metadata` as jsonb text, `run_at` already coalesced with `recorded_at`.
    struct EnqueuedColumns {
        var kind = ReplayText.null, queue = ReplayText.null, batch = ReplayText.null, priority = ReplayText.null
        var maxAttempts = ReplayText.null, account = ReplayText.null, source = ReplayText.null
        var destination = ReplayText.null, idempotencyKey = ReplayText.null, spec = ReplayText.null
        var metadata = ReplayText.null, runAt = ReplayText.null, bytesTotal = ReplayText.null
    }

    /// Number of fields in a row of ``ReplayQueries/events(_:relation:order:)``.
    static let fieldCount = 6
}
