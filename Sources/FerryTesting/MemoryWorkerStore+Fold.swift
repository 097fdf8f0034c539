import FerryCore
import FerryStore
import Foundation

extension MemoryWorkerStore {
    /// Folds one worker-side event into `job`, as `ferry.apply_event` does for these types; the caller has
    /// checked the lease. Returns what the event announces.
    static func apply(_ type: JobEventType, _ data: [String: JSONValue], to job: inout MemoryJob, at now: Date) -> WorkerWakeup? {
        job.events.append(type)
        job.updatedAt = now
        switch type {
        case .progress:
            if let done = data["bytes_done"].flatMap(Self.int) { job.bytesDone = done }
            if let total = data["bytes_total"].flatMap(Self.int) { job.bytesTotal = total }
            if let session = data["session"] { job.session = session == .null ? nil : session }
        case .resolved:
            if case .string(let source)? = data["source"] { job.source = source }
            if case .string(let destination)? = data["destination"] { job.destination = destination }
            if case .string(let account)? = data["account"] { job.account = account }
            if let spec = data["spec"] { job.spec = spec.jsonText }
            if let total = data["bytes_total"].flatMap(Self.int) { job.bytesTotal = total }
        case .retryScheduled:
            requeue(&job, runAt: Self.date(data["run_at"]) ?? now, error: Self.string(data["error"]))
        case .deferred:
            // Rate limited: the attempt is not consumed.
            job.attempt -= 1
            requeue(&job, runAt: Self.date(data["run_at"]) ?? now, error: Self.string(data["reason"]))
        case .released:
            // Handed back (shutdown, lost reply): not a failed attempt.
            job.attempt -= 1
            requeue(&job, runAt: now, error: job.lastError)
        case .rescued:
            // The attempt counts, so a job that kills workers cannot loop forever.
            requeue(&job, runAt: now, error: Self.string(data["reason"]))
        case .cancelled:
            job.state = .cancelled
            job.worker = nil
            job.finishedAt = now
            job.lastError = Self.string(data["reason"]) ?? job.lastError
        case .succeeded:
            job.state = .succeeded
            job.worker = nil
            job.finishedAt = now
            if let done = data["bytes_done"].flatMap(Self.int) { job.bytesDone = done }
            if let total = data["bytes_total"].flatMap(Self.int) { job.bytesTotal = total }
            job.result = data["result"].flatMap { $0 == .null ? nil : $0 }
        case .failed:
            job.state = .failed
            job.worker = nil
            job.finishedAt = now
            job.lastError = Self.string(data["error"])
        case .enqueued, .claimed, .cancelRequested, .requeued, .discarded:
            // Appended by the store itself (enqueue, claim, cancel), never through a worker's outcome.
            break
        }
        // A cancel requested while running wins at the next point the job would wait again.
        if job.state == .queued && job.cancelRequested {
            job.state = .cancelled
            job.finishedAt = now
        }
        return wakeup(for: type)
    }

    private static func requeue(_ job: inout MemoryJob, runAt: Date, error: String?) {
        job.state = .queued
        job.worker = nil
        job.runAt = runAt
        job.lastError = error
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
