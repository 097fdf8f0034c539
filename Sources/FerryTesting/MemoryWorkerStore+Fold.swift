import FerryCore
import FerryStore
import Foundation

extension MemoryWorkerStore {
    /// Folds one event into `job` by ``JobTransition``'s rules, the ones `ferry.apply_event` and the replay keep.
    /// The caller has checked the lease; an event the rules refuse is left out. Returns what the event announces.
    static func apply(_ type: JobEventType, _ data: [String: JSONValue], to job: inout MemoryJob, at now: Date) -> WorkerWakeup? {
        let lease = data["lease"].flatMap(Self.int)
        let transition: JobTransition
        do {
            transition = try JobTransition.of(
                type, from: job.state, lease: job.lease, cancelRequested: job.cancelRequested,
                // A worker's outcome is recorded under the lease the caller matched; a claim carries the next one.
                eventLease: lease ?? (type == .claimed ? job.lease + 1 : job.lease))
        } catch {
            assertionFailure("the memory store applied an event its rules refuse: \(error)")
            return nil
        }
        job.events.append(type)
        job.updatedAt = now
        apply(transition, of: type, data, to: &job, at: now)
        return wakeup(for: type)
    }

    /// Writes `transition` into `job`, taking the values it names from the event's `data`.
    private static func apply(
        _ transition: JobTransition, of type: JobEventType, _ data: [String: JSONValue], to job: inout MemoryJob, at now: Date
    ) {
        job.state = transition.state
        switch transition.attempt {
        case .keep: break
        case .next: job.attempt += 1
        case .giveBack: job.attempt -= 1
        case .reset: job.attempt = 0
        }
        let text = JobTransition.textKey(of: type).flatMap { string(data[$0]) }
        if transition.claims {
            job.lease += 1
            job.worker = text
        }
        if transition.worker == .clear { job.worker = nil }
        // A retry or deferral without run_at would fail PostgreSQL's NOT NULL column; the fake runs it now.
        job.runAt = value(transition.runAt, job.runAt, event: date(data["run_at"]), now: now) ?? now
        job.lastError = value(transition.lastError, job.lastError, event: text, now: nil)
        job.finishedAt = value(transition.finishedAt, job.finishedAt, event: nil, now: now)
        if let requested = transition.cancelRequested { job.cancelRequested = requested }
        if transition.takesBytes || transition.takesResolution {
            if transition.takesBytes, let done = data["bytes_done"].flatMap(int) { job.bytesDone = done }
            if let total = data["bytes_total"].flatMap(int) { job.bytesTotal = total }
        }
        if transition.takesSession, let session = data["session"] { job.session = session == .null ? nil : session }
        if transition.takesResult { job.result = data["result"].flatMap { $0 == .null ? nil : $0 } }
        if transition.takesResolution {
            if case .string(let source)? = data["source"] { job.source = source }
            if case .string(let destination)? = data["destination"] { job.destination = destination }
            if case .string(let account)? = data["account"] { job.account = account }
        }
        if transition.takesResolution || transition.takesSpec, let spec = data["spec"], spec != .null { job.spec = spec.jsonText }
    }

    private static func value<Value>(_ change: JobTransition.Change, _ current: Value?, event: Value?, now: Value?) -> Value? {
        switch change {
        case .keep: current
        case .clear: nil
        case .event: event
        case .eventIfPresent: event ?? current
        case .now: now
        }
    }

    static func int(_ value: JSONValue) -> Int64? {
        switch value {
        case .int(let number): number
        case .double(let number): Int64(exactly: number)
        default: nil
        }
    }

    static func string(_ value: JSONValue?) -> String? {
        if case .string(let text)? = value { return text }
        return nil
    }

    static func date(_ value: JSONValue?) -> Date? {
        string(value).flatMap { ScheduleTime.parse($0, now: Date()) }
    }
}
