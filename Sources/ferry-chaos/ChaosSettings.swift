/// Everything a run depends on. The same settings and seed replay the same files and the same schedule (the
/// processes' own timing still varies).
struct ChaosSettings: Sendable {
    var seed: UInt64
    /// Seconds of chaos (kills, restarts, the zombie); the jobs are enqueued in waves over its first 75%.
    var duration: Double
    var uploads: Int
    var fetches: Int
    var maxSizeMiB: Int
    /// Share of the files that are big (tens of MiB).
    var bigShare: Double
    var workers: Int
    var concurrency: Int
    /// Mean seconds between two kill -9 of a random worker.
    var killEvery: Double
    var pgRestarts: Int
    var devServerRestarts: Int
    var zombie: Bool
    /// Multiplies every fault rate of the dev server (0 turns faults off).
    var faultScale: Double
    var tokenLifetime: Double
    /// Pace of each upload and download on the dev server, KiB/s; 0 picks one so the transfers of the run take
    /// about half of `duration` on all slots, keeping jobs in flight while the chaos happens.
    var bandwidthKiB: Int
    /// Seconds without heartbeat before a worker's jobs are rescued (the workers' `--rescue-after`).
    var rescueAfter: Double
    var drainTimeout: Double
    /// The partition phase (`--partition`): PostgreSQL black-holed under one worker, the dev server under all,
    /// a destination's disk filled, each for `partitionSeconds`.
    var partition = false
    var partitionSeconds: Double = 30
    /// A small file system of its own (a tmpfs scripts/chaos.sh mounts) holding the fetch destinations: the
    /// partition phase fills it. Empty: no disk fill.
    var fillDirectory = ""

    var ferry: String
    var adminDatabaseURL: String
    var database: String
    var pgDirectory: String
    var pgScript: String
    /// `--failover` runs: planned switchovers, and as many kill -9 of the primary.
    var failovers: Int
    var workDirectory: String
    var keep: Bool

    /// The options that replay this run.
    var replayArguments: String {
        var parts = [
            "--seed \(seed)", "--duration \(Self.number(duration))", "--uploads \(uploads)", "--fetches \(fetches)",
            "--max-size \(maxSizeMiB)", "--big-share \(Self.number(bigShare))", "--workers \(workers)",
            "--concurrency \(concurrency)", "--kill-every \(Self.number(killEvery))", "--pg-restarts \(pgRestarts)",
            "--dev-server-restarts \(devServerRestarts)", "--fault-scale \(Self.number(faultScale))",
            "--token-lifetime \(Self.number(tokenLifetime))", "--rescue-after \(Self.number(rescueAfter))",
        ]
        if bandwidthKiB > 0 { parts.append("--bandwidth \(bandwidthKiB)") }
        if !zombie { parts.append("--no-zombie") }
        if partition { parts.append("--partition --partition-seconds \(Self.number(partitionSeconds))") }
        return parts.joined(separator: " ")
    }

    /// The options that replay a `--failover` run (the fault and kill options do not apply there).
    var failoverReplayArguments: String {
        var parts = [
            "--failover", "--failovers \(failovers)", "--seed \(seed)", "--duration \(Self.number(duration))", "--uploads \(uploads)",
            "--max-size \(maxSizeMiB)", "--big-share \(Self.number(bigShare))", "--workers \(workers)", "--concurrency \(concurrency)",
            "--token-lifetime \(Self.number(tokenLifetime))", "--rescue-after \(Self.number(rescueAfter))",
        ]
        if bandwidthKiB > 0 { parts.append("--bandwidth \(bandwidthKiB)") }
        return parts.joined(separator: " ")
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
