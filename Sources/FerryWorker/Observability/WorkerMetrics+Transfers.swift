import FerryCore
import FerryStore
import Prometheus
import Synchronization

/// Metrics by provider, account and error reason, beside the kind-and-queue counters: bounded labels only (a
/// handful of providers; accounts, which are few and named by an operator; error codes, capped per process).
extension WorkerMetrics {
    static let providerJobs = MetricSpec(
        base: "ferry_provider_jobs", unit: "total",
        help: "Attempts this worker ended, by the provider and account they moved data with, and outcome.")
    static let providerBytes = MetricSpec(
        base: "ferry_provider_moved", unit: "bytes_total",
        help: "Bytes this worker's jobs moved, by the provider and account they moved data with.")
    static let jobErrors = MetricSpec(
        base: "ferry_job_errors", unit: "total",
        help: "Attempts that ended failed, retried, deferred or held, by the error's code (reason).")
    static let bytesInFlight = MetricSpec(
        base: "ferry_transfer_in_flight", unit: "bytes",
        help: "Bytes the transfers this worker runs now have still to move (their known sizes less what they moved).")

    /// Distinct reasons one process exports at most; later ones count as `other`.
    static let maximumReasons = 64

    /// The provider a job moves data with: the one it writes to (uploads, copies) or reads from (fetches), by the
    /// label it declares (`metricLabel`); a path without a scheme is `local`, a scheme no provider owns `other`.
    func provider(of job: ClaimedJob) -> String {
        let remote = job.kind == .fetch ? job.source : job.destination
        guard let scheme = EndpointSyntax.scheme(of: remote) else { return "local" }
        return providerLabels[scheme] ?? "other"
    }

    /// An error code as a label value: lowercase letters, digits and `_`, at most 48, or `other` once the
    /// process has seen ``maximumReasons`` distinct ones.
    func reason(_ code: String) -> String {
        let cleaned = String(code.lowercased().map { ($0.isLetter && $0.isASCII) || ($0.isNumber && $0.isASCII) ? $0 : "_" }.prefix(48))
        let value = cleaned.isEmpty ? "unknown" : cleaned
        return reasons.withLock { known in
            if known.contains(value) { return value }
            guard known.count < Self.maximumReasons else { return "other" }
            known.insert(value)
            return value
        }
    }

    func providerOutcome(_ outcome: String, _ job: ClaimedJob) {
        let labels = [("provider", provider(of: job)), ("account", job.account ?? "none"), ("outcome", outcome)]
        counter(Self.providerJobs, labels).increment()
    }

    func providerBytes(_ bytes: Int64, _ job: ClaimedJob) {
        counter(Self.providerBytes, [("provider", provider(of: job)), ("account", job.account ?? "none")]).increment(by: bytes)
    }

    func jobError(_ outcome: String, _ job: ClaimedJob, code: String) {
        counter(Self.jobErrors, [("kind", job.kind.rawValue), ("queue", job.queue), ("outcome", outcome), ("reason", reason(code))])
            .increment()
    }

    func bytesInFlight(_ bytes: Int64) {
        gauge(Self.bytesInFlight, []).set(bytes)
    }
}
