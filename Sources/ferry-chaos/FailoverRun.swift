import AsyncHTTPClient
import FerryCore
import Foundation
import Postgres

/// `ferry-chaos --failover`: Ferry on a pg_auto_failover formation (scripts/failover.sh). Workers upload to the dev
/// server and a producer enqueues one upload per `ferry enqueue --wait-for-database` in a loop, all on the
/// formation's multi-host URL, while the primary moves: planned switchovers alternate with kill -9 of the primary
/// and its keeper (the killed node then rejoins as the standby, so the next event has one). Then the checks, and
/// the figures: each switchover's time, each failover's time from the kill to the first job finished on the new
/// primary, and the enqueue calls that waited.
actor FailoverRun: ScenarioPhases {
    let settings: ChaosSettings
    let corpus: Corpus
    let batch: String
    let work: String
    let logs: String
    let formation: FailoverFormationControl
    let http = ChaosHTTP(client: HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow)))
    /// Set up by `prepare()`.
    var database: ChaosDatabase!
    var cli: FerryCLI!
    var dev: DevServerControl!
    var fleet: WorkerFleet!
    var ownRefreshToken = ""
    /// Each worker's process id at the start: "resumed by themselves" means the same processes at the end.
    var workerPIDs: [Int32] = []
    var calls: [EnqueueCall] = []
    var events: [FailoverEvent] = []
    var started = Date()
    var chaosStarted = Date()
    var drainSeconds = 0.0
    var waitStatus: Int32 = -1
    var workerExits: [(name: String, status: Int32?)] = []
    /// Workers that were not running any more before the SIGTERM at the end (they died: nothing restarts them here).
    var workersGone: [String] = []
    /// Jobs each worker claimed after the last switchover or kill, by worker name.
    var claimsAfterLastEvent: [String: Int] = [:]

    init(settings: ChaosSettings, script: String) {
        self.settings = settings
        work = settings.workDirectory
        logs = settings.workDirectory + "/logs"
        corpus = Corpus.plan(settings: settings, directory: settings.workDirectory)
        batch = "failover-\(settings.seed)"
        formation = FailoverFormationControl(script: script, directory: settings.workDirectory + "/formation", logDirectory: logs)
    }

    func run() async throws -> ChaosReport {
        started = Date()
        say("ferry failover run, seed \(settings.seed)")
        say("replay: ferry-chaos \(settings.failoverReplayArguments)")
        say("scratch: \(work)")
        do {
            let checks = try await runPhases()
            let report = makeReport(checks)
            await finish(passed: report.passed)
            return report
        } catch {
            say("formation at the failure:\n" + (await formation.status()))
            await fleet?.killAll()
            await dev?.stop()
            await formation.stop()
            try? await http.client.shutdown()
            database?.close()
            throw error
        }
    }

    // MARK: Setup

    func prepare() async throws {
        let fm = FileManager.default
        for folder in [work, logs, work + "/dropbox"] {
            try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        let formed = Date()
        let url = try await formation.start()
        say(String(format: "pg_auto_failover formation up in %.1f s (monitor, node1 primary, node2 synchronous standby): %@",
                   Date().timeIntervalSince(formed), url))
        database = ChaosDatabase(url: url)

        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FERRY_") }
        environment["FERRY_DATABASE_URL"] = url
        environment["FERRY_LOCAL_ROOTS"] = work
        let repository = URL(fileURLWithPath: formation.script).standardizedFileURL.deletingLastPathComponent().deletingLastPathComponent().path
        if fm.fileExists(atPath: repository + "/migrations") { environment["FERRY_MIGRATIONS_DIR"] = repository + "/migrations" }
        var key = SystemRandomNumberGenerator()
        environment["FERRY_SECRET_KEY"] = Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &key) }).base64EncodedString()
        cli = FerryCLI(executable: settings.ferry, environment: environment, scratch: logs)
        _ = try await cli.runRetrying(["migrate"])

        try corpus.write(seed: settings.seed)
        dev = try DevServerControl(ferry: settings.ferry, storage: work + "/dropbox", workDirectory: work, logDirectory: logs, http: http)
        try await dev.start(tokenLifetime: settings.tokenLifetime)
        let ferryToken = try await dev.refreshToken(account: "chaos")
        ownRefreshToken = try await dev.refreshToken(account: "chaos")
        let base = await dev.baseURL
        _ = try await cli.runRetrying(
            ["account", "add", "chaos", "--provider", "dropbox", "--app-key", dev.appKey, "--app-secret-file", dev.appSecretFile,
             "--refresh-token-file", "-", "--api-url", base, "--content-url", base, "--authorize-url", base],
            stdin: ferryToken + "\n")
        // No faults but the database's: transfers are paced so that some are always in flight when the primary goes.
        try await dev.setFaults(.object(["upload_bytes_per_second": .int(pace), "latency_milliseconds": .int(10)]))

        fleet = WorkerFleet(
            count: settings.workers, ferry: settings.ferry, environment: environment, logDirectory: logs,
            arguments: ["--concurrency", "\(settings.concurrency)", "--chunk-size", "4", "--heartbeat-interval", "1",
                        "--rescue-after", ChaosSettings.number(settings.rescueAfter), "--poll-interval", "1", "--retry-base", "0.25",
                        "--shutdown-timeout", "15", "--log-format", "json", "--log-level", "info",
                        // Random kill -9 every few seconds rescues innocent jobs again and again: poison would end
                        // them, and the run checks that every job succeeds.
                        "--poison-after", "0"])
        try await fleet.startAll()
        for index in 0..<settings.workers { workerPIDs.append(await fleet.process(index)?.pid ?? -1) }
        say(String(format: "%d files (%.0f MiB), %d workers (concurrency %d), each transfer paced at %.0f KiB/s",
                   corpus.uploads.count, Double(corpus.totalBytes) / 1_048_576, settings.workers, settings.concurrency, Double(pace) / 1024))
    }

    /// Bytes per second of each transfer: what makes the uploads take about half the run on all slots.
    var pace: Int64 {
        if settings.bandwidthKiB > 0 { return Int64(settings.bandwidthKiB) * 1024 }
        let slots = Double(settings.workers * settings.concurrency)
        return Int64(max(256 * 1024, Double(corpus.totalBytes) / (slots * 0.5 * settings.duration)))
    }

    // MARK: The run

    /// The producer, and meanwhile the switchovers and kills, spread over the first 60% of the run (the producer
    /// goes on to 75%, so jobs come after the last event too).
    func chaos() async throws {
        chaosStarted = Date()
        let count = 2 * settings.failovers
        say("for \(ChaosSettings.number(settings.duration)) s: \(settings.failovers) switchover(s) and \(settings.failovers) kill -9 of the primary, alternating")
        let producer = Task { await self.produce() }
        for index in 0..<count {
            let at = settings.duration * 0.6 * Double(index + 1) / Double(count)
            let wait = at - Date().timeIntervalSince(chaosStarted)
            if wait > 0 { try await Task.sleep(for: .milliseconds(Int(wait * 1000))) }
            if index % 2 == 0 {
                try await switchover()
            } else {
                try await killPrimary()
            }
        }
        await producer.value
        let failed = calls.filter { $0.id == nil }.count
        say("producer done: \(calls.count) enqueue calls, \(calls.filter(\.waited).count) waited, \(failed) failed")
    }

    /// One `ferry enqueue upload` per file, paced over 75% of the run, each with `--wait-for-database 60s`.
    func produce() async {
        let uploads = corpus.uploads
        let interval = settings.duration * 0.75 / Double(max(1, uploads.count))
        for (index, file) in uploads.enumerated() {
            let due = Double(index) * interval - Date().timeIntervalSince(chaosStarted)
            if due > 0 { try? await Task.sleep(for: .milliseconds(Int(due * 1000))) }
            let begun = Date()
            let result = (try? await cli.run(
                ["enqueue", "upload", file.localPath, "--to", "dropbox:chaos:" + file.remotePath, "--batch", batch,
                 "--max-attempts", "1000", "--wait-for-database", "60s"], timeout: 120))
                ?? FerryCLI.Result(status: -1, stdout: "", stderr: "could not run ferry enqueue")
            let id = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            calls.append(EnqueueCall(
                name: file.name, id: result.status == 0 && UUID(uuidString: id) != nil ? id.lowercased() : nil, status: result.status,
                started: begun, seconds: Date().timeIntervalSince(begun), waited: result.stderr.contains("waiting for PostgreSQL"),
                stderr: result.stderr))
        }
    }

    func switchover() async throws {
        var event = FailoverEvent(kind: .switchover, at: Date())
        event.from = try await formation.primary()
        try await formation.switchover()
        event.seconds = Date().timeIntervalSince(event.at)
        event.to = try await formation.primary()
        say(String(format: "switchover %@ → %@: %.1f s until the new primary had its synchronous standby", event.from, event.to, event.seconds ?? 0))
        events.append(event)
    }

    func killPrimary() async throws {
        let (killed, at) = try await formation.killPrimary()
        var event = FailoverEvent(kind: .kill, at: at)
        event.from = killed
        say("kill -9 of \(event.from) (primary) and its keeper")
        let deadline = Date().addingTimeInterval(300)
        while event.firstFinished == nil && Date() < deadline {
            event.firstFinished = await firstEvent("succeeded", after: event.at)
            if event.firstFinished == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        event.firstWrite = await firstEvent("", after: event.at)
        // The monitor hears of the promotion from the keeper a moment after the node takes writes.
        let reported = Date().addingTimeInterval(60)
        while event.to.isEmpty && Date() < reported {
            if let primary = try? await formation.primary(), primary != event.from {
                event.to = primary
            } else {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        say(String(format: "%@ promoted: first write after %@, first job finished after %@",
                   event.to, event.firstWrite.map { String(format: "%.1f s", $0) } ?? "n/a",
                   event.firstFinished.map { String(format: "%.1f s", $0) } ?? "none within 300 s"))
        try await formation.rejoin(event.from)
        event.rejoined = Date().timeIntervalSince(event.at)
        say(String(format: "%@ rejoined as the synchronous standby, %.1f s after the kill", event.from, event.rejoined ?? 0))
        events.append(event)
    }

    /// Seconds from `date` to the first event of `type` (of any type: "") whose transaction began after it
    /// (`recorded_at` is the transaction's start): after a kill, only the new primary can have written it. Nil
    /// while there is none or the database cannot be reached.
    func firstEvent(_ type: String, after date: Date) async -> Double? {
        let rows = try? await database.client.withConnection {
            try $0.query(
                "SELECT extract(epoch FROM min(recorded_at))::float8 FROM ferry.events WHERE ($1 = '' OR type = $1) AND recorded_at > to_timestamp($2::float8)",
                [type, date.timeIntervalSince1970]
            ).rows
        }
        guard let text = rows?.first?.values.first ?? nil, let epoch = Double(text) else { return nil }
        return epoch - date.timeIntervalSince1970
    }

    func drain() async throws {
        let begun = Date()
        let result = try await cli.run(["wait", "--batch", batch, "--timeout", ChaosSettings.number(settings.drainTimeout)],
                                       timeout: settings.drainTimeout + 60)
        waitStatus = result.status
        drainSeconds = Date().timeIntervalSince(begun)
        say(String(format: "ferry wait --batch exited %d after %.1f s", result.status, drainSeconds))
        if let last = events.last {
            let rows = try await database.rows(
                "SELECT data->>'worker', count(*) FROM ferry.events WHERE type = 'claimed' AND recorded_at > to_timestamp($1::float8) GROUP BY 1",
                [last.at.timeIntervalSince1970])
            for row in rows { claimsAfterLastEvent[row.values[0] ?? ""] = Int(row.values[1] ?? "") ?? 0 }
        }
        for index in 0..<settings.workers {
            if let process = await fleet.process(index), !process.isRunning || process.pid != workerPIDs[index] {
                workersGone.append(process.label)
            }
        }
        workerExits = await fleet.stopAll(timeout: 60)
    }

    // MARK: Output

    func say(_ text: String) {
        let elapsed = Date().timeIntervalSince(chaosStarted > started ? chaosStarted : started)
        FileHandle.standardOutput.write(Data((String(format: "%7.1fs  ", elapsed) + text + "\n").utf8))
    }

    private func finish(passed: Bool) async {
        await dev.stop()
        await formation.stop()
        try? await http.client.shutdown()
        database.close()
        ScratchDirectory(work: work, logs: logs).settle(keep: settings.keep, passed: passed, bulky: ["uploads", "dropbox", "formation"]) { say($0) }
    }
}
