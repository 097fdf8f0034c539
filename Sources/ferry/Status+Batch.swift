import ArgumentParser
import FerryCore
import FerryStore
import Foundation

extension Status {
    /// The state `--state` names, or the attention order (failed first) without it.
    static func states(_ state: String?) throws -> [JobState] {
        guard let state else { return FerryReads.attentionOrder }
        guard let known = JobState(rawValue: state.lowercased()) else {
            throw CLIUsageError(
                message: "--state \(state): give one of \(JobState.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return [known]
    }

    /// A batch's summary and its jobs in `states`, with how many of them are not shown (`jobs_not_shown` in JSON).
    func showBatch(
        _ batch: String, states: [JobState], limit: Int, store: FerryStore, output: ([String: JSONValue]) -> String
    ) async throws {
        guard let summary = try await store.reads.batchStatus(batch).first else {
            throw Self.missing(batch: batch, try await store.archive.batch(batch), json: json)
        }
        let jobs = try await store.reads.batchJobs(batch, states: states, limit: limit)
        // The summary's counts are the projection's counters: what the states asked for hold in all.
        let total = states.reduce(Int64(0)) { $0 + Self.count(of: $1, in: summary) }
        let notShown = max(0, total - Int64(jobs.count))
        if json {
            return print(output(["batch": summary.json, "jobs": .array(jobs.map(\.json)), "jobs_not_shown": .int(notShown)]))
        }
        printBatches([summary])
        print("")
        if jobs.isEmpty, let state = states.first, states.count == 1 { return print("no \(state.rawValue) jobs") }
        printJobs(jobs, limit: limit, notShown: notShown)
    }

    static func count(of state: JobState, in summary: BatchStatusRow) -> Int64 {
        switch state {
        case .queued: summary.queued
        case .running: summary.running
        case .succeeded: summary.succeeded
        case .failed: summary.failed
        case .cancelled: summary.cancelled
        case .discarded: summary.discarded
        }
    }
}
