import FerryCore
import Foundation

/// An event a claim holder appends: progress or the end of its attempt.
public struct JobOutcome: Sendable, Hashable {
    public var jobID: UUID
    /// The claim's fencing token; the database rejects the event if the claim is no longer current.
    public var lease: Int64
    public var type: JobEventType
    /// The event's payload (the lease is added to it).
    public var data: [String: JSONValue]
    /// The account whose concurrency cap the job counted against, when this outcome ends its claim or (a progress
    /// event with every byte up) its transfer: writing it frees a slot of that account, which workers waiting on
    /// the cap are told of (not stored in the event).
    public var freedAccount: String?

    public init(jobID: UUID, lease: Int64, type: JobEventType, data: [String: JSONValue] = [:], freedAccount: String? = nil) {
        self.jobID = jobID
        self.lease = lease
        self.type = type
        self.data = data
        self.freedAccount = freedAccount
    }

    public static func succeeded(_ job: ClaimedJob, bytes: Int64? = nil, result: JSONValue? = nil) -> JobOutcome {
        var data = [String: JSONValue]()
        if let bytes { data["bytes_done"] = .int(bytes) }
        if let result { data["result"] = result }
        return JobOutcome(jobID: job.jobID, lease: job.lease, type: .succeeded, data: data, freedAccount: job.account)
    }

    public static func failed(_ job: ClaimedJob, error: String) -> JobOutcome {
        JobOutcome(jobID: job.jobID, lease: job.lease, type: .failed, data: ["error": .string(error)], freedAccount: job.account)
    }

    public static func retry(_ job: ClaimedJob, error: String, at runAt: Date) -> JobOutcome {
        JobOutcome(
            jobID: job.jobID, lease: job.lease, type: .retryScheduled,
            data: ["error": .string(error), "run_at": .string(ScheduleTime.iso8601(runAt))], freedAccount: job.account)
    }

    public static func deferred(_ job: ClaimedJob, reason: String, until runAt: Date) -> JobOutcome {
        JobOutcome(
            jobID: job.jobID, lease: job.lease, type: .deferred,
            data: ["reason": .string(reason), "run_at": .string(ScheduleTime.iso8601(runAt))], freedAccount: job.account)
    }

    public static func released(_ job: ClaimedJob, reason: String) -> JobOutcome {
        JobOutcome(jobID: job.jobID, lease: job.lease, type: .released, data: ["reason": .string(reason)], freedAccount: job.account)
    }

    public static func cancelled(_ job: ClaimedJob) -> JobOutcome {
        JobOutcome(jobID: job.jobID, lease: job.lease, type: .cancelled, data: ["reason": .string("cancel requested")], freedAccount: job.account)
    }

    public static func progress(
        _ job: ClaimedJob, bytesDone: Int64, bytesTotal: Int64? = nil, session: JSONValue? = nil
    ) -> JobOutcome {
        var data: [String: JSONValue] = ["bytes_done": .int(bytesDone)]
        if let bytesTotal { data["bytes_total"] = .int(bytesTotal) }
        if let session { data["session"] = session }
        // Every byte up: only the commit is left, and the job stops counting against its account's cap.
        let total = bytesTotal ?? job.bytesTotal ?? 0
        let dataUp = total > 0 && bytesDone >= total
        return JobOutcome(jobID: job.jobID, lease: job.lease, type: .progress, data: data, freedAccount: dataUp ? job.account : nil)
    }
}
