import AsyncHTTPClient
import FerryCore
import Foundation

/// One chaos run: setup, the chaos itself, the drain, the checks.
actor ChaosRun: ScenarioPhases {
    let settings: ChaosSettings
    let schedule: ChaosSchedule
    let corpus: Corpus
    let batch: String
    let work: String
    let logs: String
    /// Set up by `prepare()`.
    var database: ChaosDatabase!
    var cli: FerryCLI!
    var dev: DevServerControl!
    var fleet: WorkerFleet!
    var cluster: PostgresCluster!
    let http = ChaosHTTP(client: HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow)))
    /// Refresh token of the run's own API calls (a second link of the same account).
    var ownRefreshToken = ""
    var started = Date()
    var chaosStarted = Date()
    var drainSeconds = 0.0
    var waitStatus: Int32 = -1
    var pgRestartSeconds: [Double] = []
    var devServerRestarts = 0
    var zombie: ZombieRecord?
    var zombieNote = "not attempted"
    /// Failures of the run's own actions (an enqueue that never went through …): the run cannot be judged.
    var actionErrors: [String] = []
    var workerExits: [(name: String, status: Int32?)] = []
    /// Restarts workers and the dev server that died on their own (recorded as crashes) until the drain ends.
    var monitor: Task<Void, Never>?
    /// What the partition phase did, for the report.
    var partitionNotes: [String] = []
    /// PostgreSQL's TCP port (black-holed under the partitioned worker).
    var pgPort = 0

    init(settings: ChaosSettings) {
        self.settings = settings
        schedule = ChaosSchedule(settings: settings)
        work = settings.workDirectory
        logs = settings.workDirectory + "/logs"
        corpus = Corpus.plan(settings: settings, directory: settings.workDirectory)
        batch = "chaos-\(settings.seed)"
    }

    func run() async throws -> ChaosReport {
        started = Date()
        say("ferry chaos run, seed \(settings.seed)")
        say("replay: ferry-chaos \(settings.replayArguments)")
        say("scratch: \(work)")
        do {
            let checks = try await runPhases()
            let report = await makeReport(checks)
            await finish(passed: report.passed)
            return report
        } catch {
            monitor?.cancel()
            await fleet?.killAll()
            await dev?.stop()
            try? await http.client.shutdown()
            database?.close()
            throw error
        }
    }

    // MARK: Setup

    func prepare() async throws {
        let fm = FileManager.default
        for folder in [work, logs, work + "/dropbox", work + "/fetched"] {
            try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        let tcpURL = try await ChaosDatabase.create(settings.database, adminURL: settings.adminDatabaseURL)
        // In the partition phase everything but one worker reaches PostgreSQL through its Unix-domain socket, which
        // no packet filter touches; that worker's TCP port is what gets black-holed.
        var url = tcpURL
        if settings.partition {
            (url, pgPort) = try PartitionControl.socketURL(tcpURL, directory: settings.pgDirectory)
        }
        database = ChaosDatabase(url: url)
        cluster = PostgresCluster(script: settings.pgScript, directory: settings.pgDirectory, logDirectory: logs)

        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FERRY_") }
        environment["FERRY_DATABASE_URL"] = url
        // Workers read the corpus and write fetched files only inside the run's folder.
        environment["FERRY_LOCAL_ROOTS"] = work
        let repository = URL(fileURLWithPath: settings.pgScript).standardizedFileURL.deletingLastPathComponent().deletingLastPathComponent().path
        if fm.fileExists(atPath: repository + "/migrations") { environment["FERRY_MIGRATIONS_DIR"] = repository + "/migrations" }
        var key = SystemRandomNumberGenerator()
        environment["FERRY_SECRET_KEY"] = Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &key) }).base64EncodedString()
        cli = FerryCLI(executable: settings.ferry, environment: environment, scratch: logs)
        _ = try await cli.runRetrying(["migrate"])

        let mib = Double(corpus.totalBytes) / 1_048_576
        let writing = Date()
        try corpus.write(seed: settings.seed)
        say(String(format: "wrote %d files (%.0f MiB) in %.1f s: %@", corpus.files.count, mib, Date().timeIntervalSince(writing), corpusSummary()))

        dev = try DevServerControl(ferry: settings.ferry, storage: work + "/dropbox", workDirectory: work, logDirectory: logs, http: http)
        try await dev.start(tokenLifetime: settings.tokenLifetime)
        let ferryToken = try await dev.refreshToken(account: "chaos")
        ownRefreshToken = try await dev.refreshToken(account: "chaos")
        let base = await dev.baseURL
        let appSecretFile = dev.appSecretFile
        _ = try await cli.runRetrying(
            ["account", "add", "chaos", "--provider", "dropbox", "--app-key", dev.appKey, "--app-secret-file", appSecretFile,
             "--refresh-token-file", "-", "--api-url", base, "--content-url", base, "--authorize-url", base,
             "--max-concurrent", "\(settings.workers * settings.concurrency)"],
            stdin: ferryToken + "\n")

        // What the fetches fetch, put there before any fault is on. Access tokens live --token-lifetime (10 s): on a
        // loaded machine these uploads take longer, so the token is renewed once half its life is gone.
        var token = try await dev.accessToken(refreshToken: ownRefreshToken)
        var tokenAt = Date()
        for file in corpus.fetches {
            if Date().timeIntervalSince(tokenAt) > settings.tokenLifetime / 2 {
                token = try await dev.accessToken(refreshToken: ownRefreshToken)
                tokenAt = Date()
            }
            switch file.role {
            case .dropboxFetch, .folderFetch: try await dev.upload(localPath: file.localPath, to: file.remotePath, token: token)
            case .webFetch: try await dev.putWebFile(localPath: file.localPath, path: file.remotePath)
            case .upload: break
            }
        }
        try await dev.setFaults(faults)
        say("dev server at \(base): faults on (\(faultSummary)), access tokens live \(ChaosSettings.number(settings.tokenLifetime)) s, "
            + (pace > 0 ? String(format: "each transfer paced at %.0f KiB/s", Double(pace) / 1024) : "transfers unpaced"))

        fleet = WorkerFleet(
            count: settings.workers, ferry: settings.ferry, environment: environment, logDirectory: logs,
            slotEnvironment: settings.partition ? [0: ["FERRY_DATABASE_URL": tcpURL]] : [:],
            arguments: (settings.partition ? ["--read-idle-timeout", "10"] : []) + ["--concurrency", "\(settings.concurrency)", "--chunk-size", "4", "--heartbeat-interval", "1",
                        "--rescue-after", ChaosSettings.number(settings.rescueAfter), "--poll-interval", "1", "--retry-base", "0.25",
                        "--shutdown-timeout", "15", "--log-format", "json", "--log-level", "info",
                        // Random kill -9 every few seconds rescues innocent jobs again and again: poison would end
                        // them, and the run checks that every job succeeds.
                        "--poison-after", "0"])
        try await fleet.startAll()
        let (fleet, dev, lifetime, faults) = (self.fleet!, self.dev!, settings.tokenLifetime, self.faults)
        monitor = Task {
            while !Task.isCancelled {
                try? await fleet.reapCrashed()
                try? await dev.reviveIfCrashed(tokenLifetime: lifetime, faults: faults)
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
        say("\(settings.workers) workers started (concurrency \(settings.concurrency), 4 MiB chunks, rescue after \(ChaosSettings.number(settings.rescueAfter)) s)")
    }

    /// Bytes per second of each transfer: the given --bandwidth, or what makes the corpus take about half the
    /// chaos on all slots (at least 256 KiB/s; above 64 MiB/s no limit at all), so transfers are in flight from the
    /// first wave to the end.
    var pace: Int64 {
        if settings.bandwidthKiB > 0 { return Int64(settings.bandwidthKiB) * 1024 }
        let slots = Double(settings.workers * settings.concurrency)
        let wanted = Double(corpus.totalBytes) / (slots * 0.5 * settings.duration)
        return wanted > 64 * 1_048_576 ? 0 : Int64(max(256 * 1024, wanted))
    }

    /// The dev server's fault rates (scaled by --fault-scale); the seed makes the sequence of faults replayable.
    var faults: JSONValue {
        let scale = settings.faultScale
        return .object([
            "upload_bytes_per_second": .int(pace),
            "download_bytes_per_second": .int(pace),
            "seed": .int(Int64(settings.seed % UInt64(Int64.max))),
            "failure_rate": .double(0.03 * scale),
            "drop_rate": .double(0.02 * scale),
            "drop_after_apply_rate": .double(0.02 * scale),
            "rate_limit_rate": .double(0.02 * scale),
            "retry_after_seconds": .int(1),
            "write_contention_rate": .double(0.03 * scale),
            "write_rate_limit_rate": .double(0.02 * scale),
            "partial_chunk_rate": .double(0.03 * scale),
            "latency_milliseconds": .int(scale > 0 ? 10 : 0),
            "include_oauth": .bool(scale > 0),
        ])
    }

    var faultSummary: String {
        let scale = settings.faultScale
        guard scale > 0 else { return "none" }
        func pct(_ rate: Double) -> String { String(format: "%g%%", rate * scale * 100) }
        return "5xx \(pct(0.03)), dropped before \(pct(0.02)) / after applying \(pct(0.02)) / mid-chunk \(pct(0.03)), "
            + "429 \(pct(0.02)), write contention 409 \(pct(0.03)) / 429 \(pct(0.02)), OAuth included"
    }

    func corpusSummary() -> String {
        func describe(_ files: [CorpusFile]) -> String {
            let big = files.filter(\.isBig).count
            return "\(files.count) (\(big) of tens of MiB)"
        }
        let fetches = corpus.fetches
        return "uploads \(describe(corpus.uploads)); fetches \(describe(fetches.filter { $0.role == .dropboxFetch })) from Dropbox, "
            + "\(describe(fetches.filter { $0.role == .webFetch })) from the web, \(fetches.filter { $0.role == .folderFetch }.count) through one folder listing"
    }

    // MARK: Jobs

    /// The JSON Lines of wave `wave`: files are dealt round-robin, big ones first, so every wave has some.
    func jobLines(wave: Int) async -> [String] {
        let base = await dev.baseURL
        var lines: [String] = []
        func line(_ kind: String, _ source: String, _ to: String, key: String, options: JSONValue? = nil) -> String {
            var object: [String: JSONValue] = [
                "kind": .string(kind), "source": .string(source), "to": .string(to), "batch": .string(batch),
                "key": .string(key), "max_attempts": .int(1000),
            ]
            if let options { object["options"] = options }
            return JSONValue.object(object).jsonText
        }
        for (index, file) in corpus.files.enumerated() where index % schedule.waves == wave {
            switch file.role {
            case .upload:
                lines.append(line("upload", file.localPath, "dropbox:chaos:" + file.remotePath, key: "up-" + file.name))
            case .dropboxFetch:
                lines.append(line("fetch", "dropbox:chaos:" + file.remotePath, work + "/fetched/dropbox/", key: "fd-" + file.name))
            case .webFetch:
                lines.append(line("fetch", base + "/web/" + file.remotePath, work + "/fetched/web/", key: "fw-" + file.name))
            case .folderFetch:
                break
            }
        }
        if wave == min(1, schedule.waves - 1) && corpus.files.contains(where: { $0.role == .folderFetch }) {
            lines.append(line("fetch", "dropbox:chaos:/folder", work + "/fetched/folder/", key: "folder", options: .object(["page_size": .int(2)])))
        }
        return lines
    }

    /// Every idempotency key enqueued (the folder's children are found by destination).
    var expectedKeys: [String] {
        var keys: [String] = []
        for file in corpus.files {
            switch file.role {
            case .upload: keys.append("up-" + file.name)
            case .dropboxFetch: keys.append("fd-" + file.name)
            case .webFetch: keys.append("fw-" + file.name)
            case .folderFetch: break
            }
        }
        if corpus.files.contains(where: { $0.role == .folderFetch }) { keys.append("folder") }
        return keys
    }

    func enqueue(wave: Int) async {
        let lines = await jobLines(wave: wave)
        guard !lines.isEmpty else { return }
        let path = work + "/wave-\(wave).jsonl"
        do {
            try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            // Keys make a retry after an interrupted enqueue (PostgreSQL restarting) a no-op for what committed.
            _ = try await cli.runRetrying(["enqueue", "--from", path])
            say("enqueued wave \(wave + 1)/\(schedule.waves): \(lines.count) jobs")
        } catch {
            actionErrors.append("enqueue of wave \(wave) failed: \(error)")
            say("enqueue of wave \(wave) FAILED: \(error)")
        }
    }

    // MARK: Output

    /// A line of the timeline, with the seconds since the chaos started (or since setup began).
    func say(_ text: String) {
        let elapsed = Date().timeIntervalSince(chaosStarted > started ? chaosStarted : started)
        let line = String(format: "%7.1fs  ", elapsed) + text + "\n"
        FileHandle.standardOutput.write(Data(line.utf8))
    }

    // MARK: End

    private func finish(passed: Bool) async {
        await dev.stop()
        try? await http.client.shutdown()
        database.close()
        ScratchDirectory(work: work, logs: logs).settle(keep: settings.keep, passed: passed, bulky: ["uploads", "fetch-sources", "fetched", "dropbox"]) { say($0) }
    }
}
