import ArgumentParser
import AsyncHTTPClient
import FerryCore
import FerryHTTP
import FerryProviders
import FerryStore
import FerryWorker
import Foundation
import Logging
import Postgres
import Prometheus
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Run a worker: claim jobs from the queues and move the data, until SIGTERM.",
        discussion: """
            Run as many workers as you like, on as many machines: they coordinate only through PostgreSQL (claims \
            with FOR UPDATE SKIP LOCKED, heartbeats, rescue of jobs held by dead workers).

            SIGTERM or SIGINT: stop claiming, let running jobs finish within --shutdown-timeout, release the rest \
            back to the queue (not counted as a failed attempt), deregister, exit 0. A second signal exits at once.

            Examples:
              ferry worker --local-root /srv/photos
              ferry worker --local-root /srv/in --local-root /srv/out \\
                  --queues photos,default --concurrency 16 \\
                  --metrics-listen 127.0.0.1:9464
              ferry worker --name nas-1 --shutdown-timeout 60 --log-format json
              ferry worker --poll-only          # behind PgBouncer in transaction mode
              ferry worker --bwlimit 20M        # at most 20 MiB/s for this process
              ferry worker --wait-for-schema 10m   # started before ferry migrate ends

            Local files: a worker reads upload sources and writes local copies and fetched files only inside its \
            --local-root folders (repeatable; or FERRY_LOCAL_ROOTS, colon-separated). Jobs naming a path outside \
            them fail for good before anything is opened. --any-local-path lifts the confinement: any producer \
            can then make the worker read or write any file its OS user can (single-user setups only).

            Every worker also fires due schedules (ferry schedule add), at most one job per tick across the fleet; \
            --no-schedules leaves that to the others.

            PostgreSQL unreachable: a running worker reconnects with backoff and writes what it finished meanwhile; \
            a starting one waits for it as it waits for the schema (below).

            Behind PgBouncer in transaction mode notifications never arrive: use --poll-only. A worker started \
            without it notices (its own test notification does not come back within 5 s), warns once and polls \
            every second. --poll-only also sends every statement unprepared (or FERRY_PREPARED_STATEMENTS=off, for \
            any command): a pooler in transaction mode keeps no prepared statement between transactions.

            Until the database has this build's schema (and while PostgreSQL is unreachable) the worker waits, \
            saying so once, and checks again with growing pauses (up to 30 s) for --wait-for-schema; then it exits \
            78. With --metrics-listen, GET /health answers 200 all along, GET /ready answers 200 once the worker \
            runs with the database reachable and the schema current (503 with the reason otherwise), and GET \
            /metrics serves Prometheus metrics.
            """)

    @Option(help: ArgumentHelp("Comma-separated queues to work.", valueName: "a,b"), completion: CompletionValues.queueList)
    var queues = "default"

    // .unconditional: "-1" after the flag is its value (refused as out of range), not a flag (argument-parser's
    // "Missing value"); the same for the numbers below.
    @Option(parsing: .unconditional, help: "Jobs run at once by this process (fewer, with a notice, when its file descriptors do not allow that many).")
    var concurrency = 8

    @Option(help: ArgumentHelp("Worker name, unique in the fleet. Default: host-pid-random.", valueName: "name"))
    var name: String?

    @Option(name: .customLong("shutdown-timeout"), parsing: .unconditional, help: ArgumentHelp("Seconds running jobs get to finish on SIGTERM.", valueName: "s"))
    var shutdownTimeout: Double = 30

    @Option(name: .customLong("poll-interval"), parsing: .unconditional, help: ArgumentHelp("Seconds between polls when no notification arrives.", valueName: "s"))
    var pollInterval: Double = 2

    @Flag(name: .customLong("poll-only"), help: "Never LISTEN; poll only (for PgBouncer in transaction mode).")
    var pollOnly = false

    @Option(name: .customLong("metrics-listen"), help: ArgumentHelp(
        "Serve /metrics, /health and /ready on this address: 127.0.0.1:9464, [::1]:9464, 0.0.0.0:9464 (every interface).",
        valueName: "host:port"))
    var metricsListen: String?

    @Option(name: .customLong("metrics-port"), help: ArgumentHelp(
        "The same as --metrics-listen 0.0.0.0:PORT (kept for existing deployments).", valueName: "port"))
    var metricsPort: Int?

    @Option(name: .customLong("wait-for-schema"), help: ArgumentHelp(
        "How long to wait at start for PostgreSQL and for `ferry migrate` (90s, 5m, 1h; 0: do not wait).", valueName: "time"))
    var waitForSchema = "5m"

    @Option(name: .customLong("queue-stats-interval"), help: .hidden)
    var queueStatsInterval: Double = 15

    @Option(name: .customLong("log-format"), help: "text or json.", completion: CompletionValues.logFormat)
    var logFormat = "text"

    @Option(name: .customLong("heartbeat-interval"), parsing: .unconditional, help: ArgumentHelp("Seconds between heartbeats.", valueName: "s"))
    var heartbeatInterval: Double = 5

    @Option(name: .customLong("rescue-after"), parsing: .unconditional, help: ArgumentHelp("Seconds without heartbeat before a worker's jobs are rescued.", valueName: "s"))
    var rescueAfter: Double = 15

    @Option(name: .customLong("poison-after"), parsing: .unconditional, help: ArgumentHelp(
        "Rescues after which a job fails as poison instead of going to another worker: its claimers kept dying mid-job, and it may be what kills them (0: never).",
        valueName: "n"))
    var poisonAfter = 3

    @Option(name: .customLong("chunk-size"), parsing: .unconditional, help: ArgumentHelp(
        "Upload chunk size in MiB (1–150). Dropbox uses it rounded up to a multiple of 4; files up to one chunk go in one request.",
        valueName: "mib"))
    var chunkSize = 8

    @Option(name: .customLong("bwlimit"), help: ArgumentHelp(
        "Bandwidth limit for this worker process, bytes per second shared by all its transfers (uploads and downloads, every provider), as rclone's --bwlimit: 20M, 512K, 1.5G (K/M/G = KiB/MiB/GiB; a bare number is KiB). Per process: N workers move up to N times this. Default: off.",
        valueName: "rate"))
    var bwlimit: String?

    @Option(name: .customLong("read-idle-timeout"), parsing: .unconditional, help: ArgumentHelp(
        "Seconds a provider transfer may go without a byte read or written before the piece fails and is retried (a stalled peer). Long transfers that keep moving are never cut.",
        valueName: "s"))
    var readIdleTimeout: Double = 60

    @Option(help: ArgumentHelp(
        "Move no data; behave as scripted (noop, sleep:MS, progress:N, fail-until:N, fail, ratelimit-until:N, crash-if:TEXT) to rehearse a deployment.",
        valueName: "script"))
    var handler: String?

    // Benchmarks compare batched progress events with one statement each.
    @Flag(name: .customLong("no-progress-batching"), help: .hidden)
    var noProgressBatching = false

    @Option(name: .customLong("retry-base"), help: .hidden)
    var retryBase: Double = 2

    @Flag(name: .customLong("no-deletes"), help: "Delete nothing at any destination: a sync's deletions fail (deletes_disabled) and the copies still run. For fleets whose producers must not remove files.")
    var noDeletes = false

    @Flag(name: .customLong("no-schedules"), help: "Do not fire schedules (ferry schedule); other workers do.")
    var noSchedules = false

    @Option(name: .customLong("schedule-interval"), help: .hidden)
    var scheduleInterval: Double = 10

    @Option(name: .customLong("local-root"), help: ArgumentHelp(
        "A folder jobs may read from and write to (repeatable). Default: FERRY_LOCAL_ROOTS (colon-separated).",
        valueName: "dir"), completion: .directory)
    var localRoots: [String] = []

    @Flag(name: .customLong("any-local-path"), help: ArgumentHelp(
        "DANGEROUS: no local roots; producers can make this worker read or write any file its user can. Single-user setups only."))
    var anyLocalPath = false

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        #if canImport(Glibc)
            // Transfer buffers (128 KiB and up) come from mmap and go back to the kernel when freed. Otherwise
            // glibc raises its mmap threshold after the first free and keeps freed buffers in its heaps, and
            // eight concurrent 1 GiB uploads grow the worker's memory by a fifth.
            _ = glibcMallopt(-3, 128 * 1024)  // M_MMAP_THRESHOLD (<malloc.h> is not part of the Glibc module)
        #endif
        // Before anything can be logged: a SIGTERM sent from here on is never lost.
        let signals = ShutdownSignals.install()
        try await runReporting {
            let queueList = try checkedQueues()
            var bandwidthLimit: Int64?
            if let bwlimit {
                let rate = try BandwidthLimit.rate(bwlimit, field: "--bwlimit")
                bandwidthLimit = rate > 0 ? rate : nil
            }
            var scripted: ScriptedHandler?
            if let handler {
                guard let script = ScriptedHandler(script: handler) else {
                    throw CLIUsageError(message: "--handler takes noop, sleep:MS, progress:N, fail-until:N, fail, ratelimit-until:N or crash-if:TEXT")
                }
                scripted = script
            }
            let roots = try Self.localRoots(given: localRoots, any: anyLocalPath, scripted: scripted != nil)
            let metricsAddress = try Self.metricsAddress(listen: metricsListen, port: metricsPort)
            guard let schemaWait = Self.parseWait(waitForSchema) else {
                throw CLIUsageError(message: "--wait-for-schema takes a time such as 90s, 5m or 1h (0 to not wait), not '\(waitForSchema)'")
            }
            LoggingBootstrap.bootstrap(level: connection.logLevel, defaultLevel: .info, json: logFormat == "json")
            let logger = Logger(label: "ferry.worker")
            let registry = PrometheusCollectorRegistry()
            let concurrency = Self.fittedConcurrency(self.concurrency, logger: logger)

            // Connections: one per running job's progress plus claims, rescues and the batcher.
            // Behind a transaction-mode pooler (--poll-only) no statement stays prepared on a server session.
            let pgConfiguration = PostgresConfiguration(
                connectionString: connection.resolvedDatabaseURL, applicationName: "ferry worker",
                poolSize: min(8, concurrency + 3), preparedStatements: pollOnly ? false : PostgresConfiguration.preparedStatementsByDefault(fallback: true))
            let client = PostgresClient(configuration: pgConfiguration, logger: logger)
            defer { client.close() }
            let store = FerryStore(client: client, logger: logger)
            // Heartbeats and probes on a connection of their own: jobs waiting on the database (a lock, a slow disk)
            // must not make a live worker look dead and have its jobs rescued and run twice.
            var livenessConfiguration = pgConfiguration
            livenessConfiguration.applicationName = "ferry worker liveness"
            livenessConfiguration.poolSize = 1
            let livenessClient = PostgresClient(configuration: livenessConfiguration, logger: logger)
            defer { livenessClient.close() }
            let liveness = FerryStore(client: livenessClient, logger: logger)
            let readiness = WorkerReadiness(store: liveness)
            let migrationsDirectory = MigrationsLocator.locate(nil)
            let gate = SchemaGate(
                store: store, migrations: try Migration.load(from: migrationsDirectory),
                definitions: try Definition.load(fromMigrations: migrationsDirectory), bound: schemaWait,
                readiness: readiness, logger: logger)
            let workerName = name ?? WorkerConfiguration.defaultName()
            let tracing: (any Service)?
            do {
                tracing = try TracingBootstrap.bootstrap(serviceName: "ferry-worker", instance: workerName, logger: logger)
            } catch {
                throw CLIUsageError(message: "tracing is not usable as configured (\(error)): check the OTEL_* environment variables, or unset OTEL_EXPORTER_OTLP_ENDPOINT to run without tracing")
            }
            let configuration = self.configuration(
                name: workerName, queues: queueList, concurrency: concurrency, tracing: tracing != nil, roots: roots,
                bandwidthLimit: bandwidthLimit, metrics: metricsAddress != nil)
            if roots.isUnconfined {
                logger.warning(
                    "--any-local-path: this worker reads and writes any local path a job names; every producer can reach every file of this user",
                    metadata: ["uid": "\(geteuid())"])
            } else {
                logger.info("local roots", metadata: ["roots": "\(roots.summary)"])
            }
            let launch = self.launch(
                gate: gate, store: store, liveness: liveness, readiness: readiness, scripted: scripted,
                configuration: configuration, registry: registry, logger: logger)
            // The tracer's service comes first so it stops last: the spans of drained jobs are flushed on SIGTERM.
            var services: [any Service] = (tracing.map { [$0] } ?? []) + [launch]
            if let metricsAddress {
                services.append(MetricsEndpoint(registry: registry, address: metricsAddress, readiness: readiness, logger: logger))
            }
            let group = ServiceGroup(
                configuration: ServiceGroupConfiguration(
                    services: services.map { .init(service: $0, successTerminationBehavior: .gracefullyShutdownGroup) },
                    logger: logger))
            signals.attach(group)
            try await group.run()
        }
    }

    /// The queues to claim from, once every option is checked (a usage mistake or an out-of-range value refused).
    private func checkedQueues() throws -> [String] {
        guard ["text", "json"].contains(logFormat) else {
            throw CLIUsageError(message: "--log-format must be text or json")
        }
        let queueList = queues.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        for queue in queueList where !JobLimits.isValidQueueName(queue) {
            throw ValidationIssue(field: "--queues", problem: "'\(queue)' is not a valid queue name", fix: "use lowercase letters, digits, _ . -")
        }
        if let name {
            guard !name.isEmpty, name.utf8.count <= 128, !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw ValidationIssue(field: "--name", problem: "worker names are 1-128 printable characters", fix: "for example --name nas-1, or leave it out for host-pid-random")
            }
        }
        for (flag, value, least) in [
            ("--shutdown-timeout", shutdownTimeout, 0.0), ("--poll-interval", pollInterval, 0.01),
            ("--heartbeat-interval", heartbeatInterval, 0.01), ("--rescue-after", rescueAfter, 0.1),
            ("--read-idle-timeout", readIdleTimeout, 0.1),
        ] where !(value.isFinite && value >= least && value <= 86_400) {
            // A zero poll interval spins the claim loop so fast that SIGTERM is never seen.
            throw ValidationIssue(
                field: flag,
                problem: "\(value < 0 ? "is negative: it " : "")must be a number of seconds from \(least == 0 ? "0" : String(least)) to 86400, not \(value)",
                fix: "for example \(flag) \(flag == "--shutdown-timeout" ? "30" : flag == "--read-idle-timeout" ? "60" : "2")")
        }
        guard (0...1000).contains(poisonAfter) else {
            throw ValidationIssue(field: "--poison-after", problem: "must be from 0 (never) to 1000", fix: "for example --poison-after 3")
        }
        guard (1...1000).contains(concurrency) else {
            throw ValidationIssue(
                field: "--concurrency", problem: "\(concurrency < 0 ? "is negative: it " : "")must be from 1 to 1000, not \(concurrency)",
                fix: concurrency < 1 ? "give at least 1, for example --concurrency 8" : "pick a smaller number")
        }
        guard (1...150).contains(chunkSize) else {
            throw ValidationIssue(
                field: "--chunk-size", problem: "must be from 1 to 150 MiB (Dropbox accepts at most 150 MiB per request)",
                fix: "for example --chunk-size 8 or --chunk-size 48")
        }
        return queueList
    }

    /// The worker's settings from the command line.
    private func configuration(
        name workerName: String, queues queueList: [String], concurrency: Int, tracing: Bool, roots: LocalRoots,
        bandwidthLimit: Int64?, metrics: Bool
    ) -> WorkerConfiguration {
        var settings = WorkerConfiguration(
            name: workerName, queues: queueList, concurrency: concurrency,
            shutdownTimeout: .milliseconds(Int(shutdownTimeout * 1000)),
            pollInterval: .milliseconds(Int(pollInterval * 1000)), pollOnly: pollOnly,
            heartbeatInterval: .milliseconds(Int(heartbeatInterval * 1000)),
            rescueAfter: .milliseconds(Int(rescueAfter * 1000)),
            queueStatsInterval: .milliseconds(Int(max(0.05, queueStatsInterval) * 1000)),
            retryPolicy: RetryPolicy(baseSeconds: retryBase), tracing: tracing, localRoots: roots,
            batchProgress: !noProgressBatching, bandwidthLimit: bandwidthLimit)
        // The queue gauges are for /metrics only: a worker that serves none does not read them.
        settings.readsQueueDepth = metrics
        settings.poisonAfter = poisonAfter
        return settings
    }

    /// What runs once the schema is there: the worker with its handlers (and the scheduler beside it).
    private func launch(
        gate: SchemaGate, store: FerryStore, liveness: FerryStore, readiness: WorkerReadiness, scripted: ScriptedHandler?,
        configuration: WorkerConfiguration, registry: PrometheusCollectorRegistry, logger: Logger
    ) -> WorkerLaunch {
        let workerName = configuration.name
        let chunkBytes = chunkSize * 1024 * 1024
        let providers = ProviderRegistry.standard
        return WorkerLaunch(gate: gate) { [scripted] in
            if scripted == nil { await Self.compareFleetRoots(configuration.localRoots, store: store, logger: logger) }
            // Provider secrets need the key; a worker that only moves local files can run without it.
            let box = try await Self.secretBox(store: store, logger: logger)
            // Created last, after everything that can fail early: an HTTP client must be shut down, never dropped.
            let http = HTTPClient(
                eventLoopGroupProvider: .singleton,
                configuration: HTTPTransferTimeouts.configuration(idle: .milliseconds(Int(readIdleTimeout * 1000))))
            let handlers = scripted.map { JobHandlers(catchAll: $0, providers: providers) }
                ?? JobHandlers.fleet(
                    providers, store: store, box: box, http: http, workerName: workerName, chunkBytes: chunkBytes, roots: configuration.localRoots,
                    allowsDeletes: !noDeletes, logger: logger)
            let scheduler = noSchedules ? nil : Scheduler(
                store: store, workerName: workerName,
                interval: .milliseconds(Int(max(0.05, scheduleInterval) * 1000)), registry: providers, // A rehearsal (--handler) has no roots and touches no file: its scheduler checks templates as SQL did.
                localRoots: scripted == nil ? configuration.localRoots : .unconfined,
                metricsRegistry: registry, logger: logger)
            var schedulesChanged: (@Sendable () -> Void)? = nil
            if let scheduler { schedulesChanged = { scheduler.wake() } }
            let worker = Worker(
                configuration: configuration, store: store, liveness: liveness, handlers: handlers,
                metricsRegistry: registry, readiness: readiness, schedulesChanged: schedulesChanged, logger: logger)
            do {
                // The scheduler is a sibling of the worker under the same graceful shutdown.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    if let scheduler { group.addTask { try await scheduler.run() } }
                    group.addTask { try await worker.run() }
                    try await group.waitForAll()
                }
            } catch {
                try? await http.shutdown()
                throw error
            }
            try? await http.shutdown()
        }
    }
}

extension WorkerCommand {
    /// `--metrics-listen`, or `--metrics-port` as every interface; nil without either.
    static func metricsAddress(listen: String?, port: Int?) throws -> ListenAddress? {
        switch (listen, port) {
        case (nil, nil):
            return nil
        case (.some, .some):
            throw CLIUsageError(message: "give --metrics-listen or --metrics-port, not both")
        case (nil, .some(let port)):
            guard (0...65535).contains(port) else {
                throw CLIUsageError(message: "--metrics-port must be from 0 to 65535")
            }
            return ListenAddress(host: "0.0.0.0", port: port)
        case (.some(let text), nil):
            guard let address = ListenAddress(text) else {
                throw CLIUsageError(
                    message: "--metrics-listen takes HOST:PORT, such as 127.0.0.1:9464, [::1]:9464 or 0.0.0.0:9464, not '\(text)'")
            }
            return address
        }
    }

    /// `90`, `90s`, `5m`, `1h`: a span of time; nil when the text is none of these.
    static func parseWait(_ text: String) -> Duration? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let last = trimmed.last else { return nil }
        let scale: Double = last == "h" ? 3600 : last == "m" ? 60 : 1
        let number = last.isLetter ? trimmed.dropLast() : Substring(trimmed)
        guard "hms".contains(last) || last.isNumber, let amount = Double(number), amount >= 0, amount.isFinite,
            amount * scale <= 7 * 86_400
        else { return nil }
        return .milliseconds(Int64((amount * scale * 1000).rounded()))
    }

    /// The secret box from FERRY_SECRET_KEY(_FILE). Without a key the worker runs only if no account has
    /// credentials to open (it then takes local jobs only); otherwise that is a configuration error. A key that
    /// does not open the stored secrets (after a partial key rotation) is one too: the worker would fail every
    /// job of those accounts for good, so it does not start. Accounts already held (not active) are not opened until
    /// a person acts, so they do not stop it: they are named in a warning (a worker that holds an account sealed
    /// with a stray key must not keep the next deploy's workers from starting).
    static func secretBox(store: FerryStore, logger: Logger) async throws -> SecretBox? {
        do {
            let box = SecretBox(key: try SecretKey.fromEnvironment())
            let held = try await store.accounts.checkSecretKey(box, skippingHeld: true)
            if !held.isEmpty {
                logger.warning(
                    "held accounts whose secrets this FERRY_SECRET_KEY does not open: their jobs wait until they are re-sealed",
                    metadata: ["accounts": "\(held.joined(separator: ", "))", "key_id": "\(box.key.id)"])
            }
            return box
        } catch let error as SecretKeyError where error.code == .missing {
            let linked = try await store.accounts.all().filter { $0.hasRefreshToken || $0.hasSecrets }
            guard linked.isEmpty else { throw error }
            return nil
        }
    }
}

#if canImport(Glibc)
    /// glibc's `mallopt(3)`, which the Glibc module does not import.
    @_silgen_name("mallopt")
    private func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
#endif
