import FerryCore
import FerryStore
import Foundation
import Logging
import Postgres

/// A large, realistic event log written straight into a migrated database by COPY: `jobs` jobs of ten events
/// each (enqueued, claimed, progress, succeeded; some retried, failed and requeued, cancelled, deferred, rescued,
/// a few still running), over three queues and a few hundred batches; with `eventsPerJob` below ten, the first
/// events of each life only (one: every job just enqueued, the log a fresh backlog leaves). Events of `interleave` jobs at a time are
/// interleaved, as concurrent workers write them, so a job's events are not adjacent in the heap. The projection
/// is then built with the Swift rebuild and both tables are vacuumed and analyzed.
///
/// Reusable for other benchmarks (status views …): give it a fresh database's URL.
struct ReplayDataset {
    /// What was built and how long it took.
    struct Built {
        var jobs: Int
        var events: Int
        var loadSeconds: Double
        var projectionSeconds: Double
        var vacuumSeconds: Double
    }

    var jobs = 1_000_000
    var interleave = 1_000
    /// Where migrations/ is (the database is migrated first).
    var migrations = "migrations"

    /// Events of each job, 1 to ``maxEventsPerJob``: the first steps of its life.
    var eventsPerJob = Self.maxEventsPerJob

    static let maxEventsPerJob = 10

    /// Migrates `url`, loads the events with the projection triggers off, rebuilds ferry.jobs, vacuums.
    func build(url: String) async throws -> Built {
        guard (1...Self.maxEventsPerJob).contains(eventsPerJob) else {
            throw BenchError("events per job must be 1 to \(Self.maxEventsPerJob), not \(eventsPerJob)")
        }
        let client = PostgresClient(configuration: PostgresConfiguration(connectionString: url, poolSize: 1))
        defer { client.close() }
        _ = try await MigrationRunner(client: client, directory: migrations, logger: Logger(label: "bench.migrate")).migrate()

        let start = ContinuousClock.now
        try await client.withConnection { connection in
            // The owner may bypass the projection and batch triggers for a bulk load; the rebuild below makes the
            // projection, exactly as the triggers would have (verify proves it).
            try connection.execute("ALTER TABLE ferry.events DISABLE TRIGGER USER")
            defer { try? connection.execute("ALTER TABLE ferry.events ENABLE TRIGGER USER") }
            _ = try connection.transaction { tx in
                try tx.copyIn("COPY ferry.events (job_id, version, type, data, recorded_at) FROM STDIN") { writer in
                    var row = [UInt8]()
                    row.reserveCapacity(512)
                    var random = SystemRandomNumberGenerator()
                    var first = 0
                    while first < jobs {
                        let group = first..<min(jobs, first + interleave)
                        let ids = group.map { index in
                            UUIDv7.make(milliseconds: Self.baseMilliseconds + UInt64(index), using: &random).uuidString.lowercased()
                        }
                        for step in 0..<eventsPerJob {
                            for (offset, index) in group.enumerated() {
                                row.removeAll(keepingCapacity: true)
                                Self.appendEvent(job: index, id: ids[offset], step: step, to: &row)
                                try writer.writeEncodedRow(row)
                            }
                        }
                        first = group.upperBound
                    }
                }
            }
        }
        let loaded = ContinuousClock.now
        let store = FerryStore(client: client, logger: Logger(label: "bench.replay"))
        _ = try await store.projection.rebuild()
        let projected = ContinuousClock.now
        try await client.withConnection { connection in
            try connection.execute("VACUUM (ANALYZE) ferry.events")
            try connection.execute("VACUUM (ANALYZE) ferry.jobs")
        }
        let vacuumed = ContinuousClock.now
        return Built(jobs: jobs, events: jobs * eventsPerJob, loadSeconds: (loaded - start).seconds,
                     projectionSeconds: (projected - loaded).seconds, vacuumSeconds: (vacuumed - projected).seconds)
    }

    static let baseMilliseconds: UInt64 = 1_735_689_600_000  // 2025-01-01T00:00:00Z

    /// The ten steps of each kind of life; which kind a job lives is fixed by its index.
    private static let lives: [[String]] = [
        ["enqueued", "claimed", "progress", "progress", "progress", "progress", "progress", "progress", "progress", "succeeded"],
        ["enqueued", "claimed", "progress", "progress", "retry_scheduled", "claimed", "progress", "progress", "progress", "succeeded"],
        ["enqueued", "claimed", "progress", "progress", "failed", "requeued", "claimed", "progress", "progress", "succeeded"],
        ["enqueued", "claimed", "progress", "cancel_requested", "progress", "progress", "progress", "progress", "progress", "cancelled"],
        ["enqueued", "claimed", "progress", "deferred", "claimed", "progress", "progress", "progress", "progress", "succeeded"],
        ["enqueued", "claimed", "progress", "progress", "rescued", "claimed", "progress", "progress", "progress", "failed"],
        ["enqueued", "claimed", "progress", "progress", "progress", "progress", "progress", "progress", "progress", "progress"],
    ]

    /// The lease in force at each step of each life: one more for every claim so far.
    private static let leases: [[Int]] = lives.map { life in
        life.indices.map { step in life[0...step].filter { $0 == "claimed" }.count }
    }

    /// 80% succeed first time; 4% retry, 4% fail then are requeued, 4% cancelled, 3% deferred, 3% rescued then
    /// failed, 2% still running.
    private static func lifeIndex(of job: Int) -> Int {
        switch job % 100 {
        case 0..<80: 0
        case 80..<84: 1
        case 84..<88: 2
        case 88..<92: 3
        case 92..<95: 4
        case 95..<98: 5
        default: 6
        }
    }

    /// One event row in COPY text (no value needs escaping).
    private static func appendEvent(job: Int, id: String, step: Int, to row: inout [UInt8]) {
        let type = lives[lifeIndex(of: job)][step]
        let lease = leases[lifeIndex(of: job)][step]
        let size = 10_000 + (job * 7919) % 5_000_000
        let done = size * step / maxEventsPerJob
        // Job i is enqueued at base + i ms; its events follow a second apart.
        let micros = Int64(job) * 1_000 + Int64(step) * 1_000_000 + Int64(job % 997)
        var data: String
        switch type {
        case "enqueued":
            let batch = job % 10 < 3 ? #","batch":"batch-\#(job / 5_000)""# : ""
            let queue = ["default", "default", "slow", "bulk"][job % 4]
            data = #"{"kind":"fetch","queue":"\#(queue)"\#(batch),"priority":\#(job % 3),"max_attempts":5,"#
                + #""source":"https://photos.example.com/p/\#(job).jpg","destination":"/srv/photos/","#
                + #""spec":{"size":\#(size)},"metadata":{"title":"Photo \#(job)"},"bytes_total":\#(size)}"#
        case "claimed": data = #"{"lease":\#(lease),"worker":"worker-\#(job % 16)"}"#
        case "progress":
            data = job % 2 == 0
                ? #"{"lease":\#(lease),"bytes_done":\#(done),"session":{"id":"s\#(job)","offset":\#(done)}}"#
                : #"{"lease":\#(lease),"bytes_done":\#(done)}"#
        case "succeeded": data = #"{"lease":\#(lease),"bytes_done":\#(size),"result":{"rev":"r\#(job)"}}"#
        case "retry_scheduled":
            data = #"{"lease":\#(lease),"error":"timeout","run_at":"\#(timestamp(micros + 30_000_000))"}"#
        case "deferred": data = #"{"lease":\#(lease),"reason":"429","run_at":"\#(timestamp(micros + 60_000_000))"}"#
        case "rescued": data = #"{"lease":\#(lease),"reason":"worker stopped heartbeating"}"#
        case "failed": data = #"{"lease":\#(lease),"error":"not found"}"#
        case "requeued", "cancel_requested": data = #"{"requested_by":"ops"}"#
        case "cancelled": data = #"{"lease":\#(lease),"reason":"cancelled by ops"}"#
        default: data = "{}"
        }
        row.append(contentsOf: id.utf8)
        row.append(9)
        row.append(contentsOf: String(step + 1).utf8)
        row.append(9)
        row.append(contentsOf: type.utf8)
        row.append(9)
        row.append(contentsOf: data.utf8)
        row.append(9)
        row.append(contentsOf: timestamp(micros).utf8)
        row.append(10)
    }

    /// `micros` after 2025-01-01 00:00 UTC as an RFC 3339 time (the data spans less than a month).
    private static func timestamp(_ micros: Int64) -> String {
        let seconds = micros / 1_000_000
        let fraction = micros % 1_000_000
        let day = 1 + seconds / 86_400
        let hour = seconds / 3_600 % 24
        let minute = seconds / 60 % 60
        let second = seconds % 60
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "2025-01-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2)).\(pad(fraction, 6))Z"
    }
}
