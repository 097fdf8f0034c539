import Prometheus

/// A Prometheus metric: its name in two parts, so the unit suffix Prometheus' conventions ask for is never
/// forgotten (counters end in `_total`, durations in `_seconds`, sizes in `_bytes`), and its `# HELP` text.
/// docs/operations.md, "Metrics and probes", lists them all.
struct MetricSpec: Sendable, Hashable {
    /// `ferry_jobs_succeeded`.
    let base: String
    /// `total`, `seconds`, `bytes_total`, or empty for a plain count such as a gauge of jobs.
    let unit: String
    let help: String

    /// `ferry_jobs_succeeded_total`.
    var name: String { unit.isEmpty ? base : base + "_" + unit }

    var descriptor: MetricNameDescriptor { MetricNameDescriptor(metricName: base, unitName: unit, helpText: help) }
}
