import Prometheus

/// Dropbox commit metrics: how often the namespace is written to, and how well batching gathers entries.
extension WorkerMetrics {
    static let dropboxCommits = MetricSpec(
        base: "ferry_dropbox_commit_calls", unit: "total",
        help: "Dropbox commit calls by kind: batch (finish_batch_v2, any number of files), upload (files/upload), finish (upload_session/finish).")
    static let dropboxBatchSize = MetricSpec(
        base: "ferry_dropbox_commit_batch_entries", unit: "", help: "Entries per Dropbox upload_session/finish_batch_v2 call.")
    static let dropboxCommitKinds = ["batch", "upload", "finish"]

    static let dropboxBatchBuckets: [Double] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000]

    /// One commit call of `kind` (`batch`, `upload` or `finish`).
    func dropboxCommit(_ kind: String) {
        guard Self.dropboxCommitKinds.contains(kind) else { return }
        counter(Self.dropboxCommits, [("kind", kind)]).increment()
    }

    /// One `finish_batch_v2` call with `entries` entries.
    func dropboxBatch(entries: Int) {
        dropboxCommit("batch")
        valueHistogram(Self.dropboxBatchSize, buckets: Self.dropboxBatchBuckets).record(Double(entries))
    }
}
