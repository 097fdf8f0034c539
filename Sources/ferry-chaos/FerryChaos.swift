import ArgumentParser
import Foundation

/// `ferry-chaos`: real workers, a real dev server and a real PostgreSQL under faults, kills and restarts; then
/// exact checks that nothing was lost, duplicated or damaged.
@main
struct FerryChaos: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ferry-chaos",
        abstract: "Run uploads and fetches through real ferry processes under chaos, then check that nothing was lost.",
        discussion: """
            Starts `ferry dev-server` (5xx, dropped connections before, during and after applying a request, 429s, \
            write contention, short-lived tokens) and --workers `ferry worker` processes against a database of its own \
            on the given PostgreSQL cluster, enqueues --uploads uploads and --fetches fetches in waves, and meanwhile \
            kills a random worker with kill -9 every --kill-every seconds (restarting it), restarts PostgreSQL (fast \
            shutdown) --pg-restarts times, crashes and restarts the dev server --dev-server-restarts times, and pauses \
            one worker holding jobs with SIGSTOP past its lease (a zombie), resuming it once its jobs were taken over.

            Then it checks: no job lost, none succeeded twice, the server holds exactly the sources (no renamed \
            copies) with equal content hashes, every fetched file is byte-identical, `ferry projection verify` is \
            clean, nothing is left running past its lease, and the zombie's late writes were refused by the fence. \
            Exit 0 when every check passes, 1 when one fails, 2 when the run itself could not be set up.

            The seed is printed; the same options and seed replay the same files and schedule.

            With --failover it runs on a pg_auto_failover formation of its own instead (--failover-script, \
            scripts/failover.sh; no --database-url or --pg-dir): --workers workers upload --uploads files to the dev \
            server while a producer enqueues them one `ferry enqueue --wait-for-database` at a time, and the primary \
            moves --failovers times by a planned switchover and --failovers times by kill -9 of the primary and its \
            keeper (no other faults). It checks that no acknowledged enqueue is missing, every job succeeded once, \
            no upload was committed more often than attempted, the content hashes are equal, `ferry projection \
            verify` is clean, and the same worker processes took jobs after the last event; and prints each \
            switchover's and failover's time and the enqueue calls that waited.

            With --partition (root, inside a network namespace of its own: scripts/chaos.sh --partition makes one, \
            with a PostgreSQL and a tmpfs on the fetch destinations) it adds faults that do not answer: PostgreSQL's \
            TCP port is black-holed for --partition-seconds under the first worker (the others and the run reach it \
            through its Unix-domain socket), then the dev server's port under every worker, then --fill-dir is filled \
            to the last block and freed. The checks are the same, plus no renamed or conflicted copy at any \
            destination and one object per key.

            Example (scripts/chaos.sh starts PostgreSQL and builds):
              ferry-chaos --database-url postgresql://postgres@127.0.0.1:5432/postgres --pg-dir /tmp/pg --duration 600
              ferry-chaos --failover --failover-script scripts/failover.sh --duration 300 --uploads 400
            """)

    @Option(help: ArgumentHelp("Seconds of chaos (jobs are enqueued over its first 75%).", valueName: "s"))
    var duration: Double = 120

    @Option(help: "Upload jobs (local file → dev server).")
    var uploads = 120

    @Option(help: "Fetch jobs (dev server files and web files → local disk; some through one folder listing).")
    var fetches = 60

    @Option(name: .customLong("max-size"), help: ArgumentHelp("Largest file, in MiB (1–140).", valueName: "mib"))
    var maxSize = 48

    @Option(name: .customLong("big-share"), help: ArgumentHelp("Share of files of tens of MiB (0–1).", valueName: "x"))
    var bigShare = 0.1

    @Option(help: "Worker processes.")
    var workers = 3

    @Option(help: "Jobs each worker runs at once.")
    var concurrency = 4

    @Option(help: "Seed of the schedule, the file contents and the dev server's faults (default: random, printed).")
    var seed: UInt64?

    @Option(name: .customLong("kill-every"), help: ArgumentHelp("Mean seconds between two kill -9 of a random worker.", valueName: "s"))
    var killEvery: Double = 4

    @Option(name: .customLong("pg-restarts"), help: "PostgreSQL restarts (fast shutdown) during the run.")
    var pgRestarts = 2

    @Option(name: .customLong("dev-server-restarts"), help: "Dev server crashes (SIGKILL) and restarts during the run.")
    var devServerRestarts = 1

    @Flag(name: .customLong("no-zombie"), help: "Do not pause a worker past its lease.")
    var noZombie = false

    @Option(name: .customLong("fault-scale"), help: ArgumentHelp("Multiplies every fault rate (0 turns faults off).", valueName: "x"))
    var faultScale = 1.0

    @Option(name: .customLong("token-lifetime"), help: ArgumentHelp("Lifetime of the dev server's access tokens.", valueName: "s"))
    var tokenLifetime: Double = 10

    @Option(help: ArgumentHelp(
        "Pace of each transfer on the dev server, KiB/s (0: chosen so the transfers take about half of --duration).", valueName: "kib"))
    var bandwidth = 0

    @Option(name: .customLong("rescue-after"), help: ArgumentHelp("The workers' --rescue-after: a paused worker loses its jobs after this.", valueName: "s"))
    var rescueAfter: Double = 5

    @Option(name: .customLong("drain-timeout"), help: ArgumentHelp("Seconds the jobs get to finish after the chaos.", valueName: "s"))
    var drainTimeout: Double = 600

    @Flag(help: "The partition phase: black-hole PostgreSQL under one worker, then the dev server, then fill --fill-dir (scripts/chaos.sh --partition runs it in a network namespace of its own).")
    var partition = false

    @Option(name: .customLong("partition-seconds"), help: ArgumentHelp("With --partition: how long each black hole and the full disk last.", valueName: "s"))
    var partitionSeconds: Double = 30

    @Option(name: .customLong("fill-dir"), help: ArgumentHelp("With --partition: a small file system holding <work-dir>/fetched, filled for a while.", valueName: "dir"))
    var fillDir: String?

    @Option(help: ArgumentHelp("The ferry executable (default: beside ferry-chaos).", valueName: "path"))
    var ferry: String?

    @Option(name: .customLong("database-url"), help: ArgumentHelp("Admin URL of the PostgreSQL cluster (a database of its own is created).", valueName: "url"))
    var databaseURL: String?

    @Option(help: ArgumentHelp("Database to (re)create for the run.", valueName: "name"))
    var database = "ferry_chaos"

    @Option(name: .customLong("pg-dir"), help: ArgumentHelp("The cluster's scripts/pg.sh directory (for the restarts).", valueName: "dir"))
    var pgDir: String?

    @Option(name: .customLong("pg-script"), help: ArgumentHelp("scripts/pg.sh.", valueName: "path"))
    var pgScript = "scripts/pg.sh"

    @Flag(help: "Run on a pg_auto_failover formation of its own through switchovers and kills of the primary (see above).")
    var failover = false

    @Option(name: .customLong("failover-script"), help: ArgumentHelp("scripts/failover.sh (with --failover).", valueName: "path"))
    var failoverScript = "scripts/failover.sh"

    @Option(help: "With --failover: planned switchovers, and as many kill -9 of the primary.")
    var failovers = 2

    @Option(name: .customLong("work-dir"), help: ArgumentHelp("Scratch directory (default: a new one under /tmp).", valueName: "dir"))
    var workDir: String?

    @Flag(help: "Keep the scratch directory (files and logs) even when every check passed.")
    var keep = false

    func validate() throws {
        guard duration >= 10 else { throw ValidationError("--duration must be at least 10 seconds") }
        guard uploads >= 0, fetches >= 0, uploads + fetches > 0 else { throw ValidationError("--uploads and --fetches must not be negative, and not both 0") }
        guard (1...140).contains(maxSize) else { throw ValidationError("--max-size must be from 1 to 140 MiB") }
        guard (0...1).contains(bigShare) else { throw ValidationError("--big-share must be from 0 to 1") }
        guard (2...16).contains(workers) else { throw ValidationError("--workers must be from 2 to 16 (the zombie's jobs need another worker)") }
        guard (1...64).contains(concurrency) else { throw ValidationError("--concurrency must be from 1 to 64") }
        guard killEvery > 0 else { throw ValidationError("--kill-every must be positive") }
        guard (0...20).contains(pgRestarts), (0...20).contains(devServerRestarts) else { throw ValidationError("--pg-restarts and --dev-server-restarts must be from 0 to 20") }
        guard (0...4).contains(faultScale) else { throw ValidationError("--fault-scale must be from 0 to 4") }
        guard tokenLifetime >= 2 else { throw ValidationError("--token-lifetime must be at least 2 seconds") }
        guard rescueAfter >= 2 else { throw ValidationError("--rescue-after must be at least 2 seconds") }
        guard bandwidth >= 0 else { throw ValidationError("--bandwidth must not be negative") }
        if partition {
            guard !failover else { throw ValidationError("--partition and --failover are separate runs") }
            guard partitionSeconds >= 5 else { throw ValidationError("--partition-seconds must be at least 5") }
            guard duration >= partitionSeconds * 4 else { throw ValidationError("--partition needs --duration of at least 4 × --partition-seconds") }
            if let reason = PartitionControl.unavailableReason { throw ValidationError("--partition: \(reason)") }
        }
        if failover {
            guard uploads > 0 else { throw ValidationError("--failover needs --uploads") }
            guard (1...20).contains(failovers) else { throw ValidationError("--failovers must be from 1 to 20") }
        } else if databaseURL == nil || pgDir == nil {
            throw ValidationError("--database-url and --pg-dir are required (or --failover)")
        }
    }

    func run() async throws {
        let executableDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
        var settings = ChaosSettings(
            seed: seed ?? UInt64.random(in: 1...999_999_999), duration: duration, uploads: uploads, fetches: failover ? 0 : fetches,
            maxSizeMiB: maxSize, bigShare: bigShare, workers: workers, concurrency: concurrency, killEvery: killEvery,
            pgRestarts: pgRestarts, devServerRestarts: devServerRestarts, zombie: !noZombie, faultScale: faultScale,
            tokenLifetime: tokenLifetime, bandwidthKiB: bandwidth, rescueAfter: rescueAfter, drainTimeout: drainTimeout,
            ferry: ferry ?? executableDirectory + "/ferry", adminDatabaseURL: databaseURL ?? "", database: database,
            pgDirectory: pgDir ?? "", pgScript: pgScript, failovers: failovers,
            workDirectory: workDir ?? FileManager.default.temporaryDirectory.appendingPathComponent("ferry-chaos-\(UUID().uuidString.prefix(8))").path,
            keep: keep)
        settings.partition = partition
        settings.partitionSeconds = partitionSeconds
        settings.fillDirectory = fillDir ?? ""
        guard FileManager.default.isExecutableFile(atPath: settings.ferry) else {
            throw ValidationError("no ferry executable at \(settings.ferry); build it (swift build) or give --ferry")
        }
        let script = failover ? failoverScript : settings.pgScript
        guard FileManager.default.fileExists(atPath: script) else {
            throw ValidationError("no \(script); run from the repository root or give --\(failover ? "failover-script" : "pg-script")")
        }
        let report: ChaosReport
        do {
            report = failover
                ? try await FailoverRun(settings: settings, script: failoverScript).run()
                : try await ChaosRun(settings: settings).run()
        } catch {
            print("ferry-chaos: the run could not be completed (seed \(settings.seed)): \(error)")
            print("replay: ferry-chaos \(failover ? settings.failoverReplayArguments : settings.replayArguments)")
            print("files and logs kept in \(settings.workDirectory)")
            throw ExitCode(2)
        }
        print(report.text)
        if !report.passed { throw ExitCode(1) }
    }
}
