import FerryStore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A handler that moves no data and behaves as told: for rehearsing deployments (watch retries, deferrals,
/// cancellation and shutdown in the status views) and for end-to-end tests of the queue itself.
///
/// Scripts: `noop`, `sleep:MS`, `fail-until:N` (retryable failure until attempt N, then success),
/// `fail` (permanent failure), `ratelimit-until:N` (rate limited on the first N claims, then success),
/// `progress:N` (N progress reports, then success: the event mix of a real transfer without the data),
/// `crash-if:TEXT` (a job whose source holds TEXT kills the worker process, as a crashing library would; the
/// rest succeed: rehearses poison jobs, which fail after `--poison-after` rescues while the others flow).
public struct ScriptedHandler: JobHandler {
    enum Behavior: Sendable {
        case sleep(Duration)
        case failUntil(Int)
        case fail
        case rateLimitUntil(Int)
        case progress(Int)
        case crashIf(String)
    }

    let behavior: Behavior

    /// Moves no data, so it touches no local path.
    public var usesLocalFiles: Bool { false }

    /// Parses a script; `nil` when it is not one.
    public init?(script: String) {
        let parts = script.split(separator: ":", maxSplits: 1).map(String.init)
        if parts.first == "crash-if", parts.count == 2, !parts[1].isEmpty {
            behavior = .crashIf(parts[1])
            return
        }
        switch (parts.first, parts.count > 1 ? Int(parts[1]) : nil) {
        case ("noop", _): behavior = .sleep(.zero)
        case ("sleep", let ms?): behavior = .sleep(.milliseconds(ms))
        case ("fail-until", let n?): behavior = .failUntil(n)
        case ("fail", nil): behavior = .fail
        case ("ratelimit-until", let n?): behavior = .rateLimitUntil(n)
        case ("progress", let n?) where n >= 0: behavior = .progress(n)
        default: return nil
        }
    }

    public var name: String { "scripted" }


    public func run(_ job: ClaimedJob, context: JobContext) async throws -> JobResult {
        switch behavior {
        case .sleep(let duration):
            // Sleep in steps with progress, so cancellation and lost claims are noticed like in real work.
            var slept = Duration.zero
            while slept < duration {
                let step = min(.milliseconds(250), duration - slept)
                try await Task.sleep(for: step)
                slept += step
                if slept < duration { try await context.reportProgress(bytesDone: 0) }
            }
        case .failUntil(let attempt) where job.attempt < attempt:
            throw JobFailure.retryable("scripted", "scripted failure on attempt \(job.attempt)")
        case .fail:
            throw JobFailure.permanent("scripted", "scripted permanent failure")
        case .progress(let reports):
            for step in 0..<reports { try await context.reportProgress(bytesDone: Int64(step + 1) * 1024, force: true) }
        case .crashIf(let text) where job.source.contains(text):
            // SIGKILL: no outcome, no release, no deregistration; the claim is left for rescue.
            kill(getpid(), SIGKILL)
        case .rateLimitUntil(let claims) where job.lease <= Int64(claims):
            throw JobFailure.rateLimited(until: Date().addingTimeInterval(0.2), "scripted rate limit (retry after 0.2 s)")
        default:
            break
        }
        return JobResult()
    }
}
