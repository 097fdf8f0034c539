import FerryCore

extension ReplayEvent {
    /// Decodes the row last appended to `arena` (a row of ``ReplayQueries/events(_:relation:order:)``), reading
    /// the keys of the event's data with `data`. String values with escapes are decoded into the arena.
    init(_ arena: inout ReplayArena, data: inout EventData) throws(ReplayDecodingError) {
        let f = arena.fields
        guard f.count == ReplayEvent.fieldCount else {
            throw ReplayDecodingError("an event row has \(f.count) fields, expected \(ReplayEvent.fieldCount)")
        }
        let (version, type) = arena.bytes.withUnsafeBytes { buffer in
            func slice(_ text: ReplayText) -> UnsafeRawBufferPointer {
                UnsafeRawBufferPointer(rebasing: buffer[Int(text.offset)..<Int(text.offset) + Int(max(0, text.count))])
            }
            data.scan(slice(f[4]), base: Int(f[4].offset))
            return (CopyText.canonicalInteger(slice(f[1])), JobEventType(copyText: slice(f[2])))
        }
        guard let version else { throw ReplayDecodingError("an event row has no version") }
        /// `data->>'key'`: NULL for a missing key or JSON null, a string's content, any other value's text.
        func text(_ key: EventDataKey) -> ReplayText {
            guard let value = data.json(key) else { return .null }
            switch data.kind(key) {
            case .null, .missing: return .null
            case .string: return arena.jsonString(value)
            default: return value
            }
        }
        /// `nullif(data->'key', 'null')`.
        func value(_ key: EventDataKey) -> ReplayText {
            data.kind(key) == .null ? .null : data.json(key) ?? .null
        }

        var event = ReplayEvent(
            jobID: f[0], version: version, type: type, typeName: f[2], recordedAt: f[3], lease: .null, text: .null,
            bytesDone: .null, bytesTotal: .null, hasSession: false, json: .null, runAt: f[5], enqueued: .init())
        switch type {
        case .enqueued:
            event.enqueued = EnqueuedColumns(
                kind: text(.kind), queue: text(.queue), batch: text(.batch), priority: text(.priority),
                maxAttempts: text(.maxAttempts), account: text(.account), source: text(.source),
                destination: text(.destination), idempotencyKey: text(.key),
                spec: data.kind(.spec) == .missing ? arena.emptyObject() : data.json(.spec)!,
                metadata: value(.metadata), runAt: f[5].isNull ? f[3] : f[5], bytesTotal: text(.bytesTotal))
        case .claimed:
            event.lease = text(.lease)
            event.text = text(.worker)
        case .progress:
            event.lease = text(.lease)
            event.bytesDone = text(.bytesDone)
            event.bytesTotal = text(.bytesTotal)
            event.hasSession = data.hasSession
            event.json = value(.session)
        case .succeeded:
            event.lease = text(.lease)
            event.bytesDone = text(.bytesDone)
            event.bytesTotal = text(.bytesTotal)
            event.json = value(.result)
        case .retryScheduled, .failed:
            event.lease = text(.lease)
            event.text = text(.error)
        case .deferred, .rescued, .cancelled:
            event.lease = text(.lease)
            event.text = text(.reason)
        case .resolved:
            // The columns a resolution settles, read as enqueued reads them (`data->'spec'`: NULL when missing).
            event.lease = text(.lease)
            event.enqueued = EnqueuedColumns(
                account: text(.account), source: text(.source), destination: text(.destination),
                spec: data.json(.spec) ?? .null, bytesTotal: text(.bytesTotal))
        case .requeued:
            // A retry with changed provider options carries the spec they make (`data->'spec'`: NULL when missing).
            event.lease = text(.lease)
            event.enqueued = EnqueuedColumns(spec: data.json(.spec) ?? .null)
        case .released, .cancelRequested, .discarded, nil:
            event.lease = text(.lease)
        }
        self = event
    }
}
