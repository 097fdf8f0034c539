import AsyncHTTPClient
import Foundation
import NIOCore
import Postgres
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A real `ferry dashboard` process under load: `clients` open event streams (as many browsers) and `pageRate`
/// page loads per second over its pages, while the database connections it holds are sampled.
final class DashboardLoad: Sendable {
    struct Report {
        var streamsOpen: Int
        var changesSeen: Int
        var pageLoads: Int
        var pageErrors: Int
        var pageP50: Double
        var pageP99: Double
        var maxConnections: Int
        /// CPU time the dashboard process used (user + system) over `seconds` of load.
        var dashboardCPUSeconds: Double
        /// CPU time the PostgreSQL backends serving the dashboard used (its pool and its listener).
        var backendCPUSeconds: Double
        /// CPU time this load generator used meanwhile (200 streams and the page loads are not free either).
        var loadCPUSeconds: Double
        var seconds: Double
    }

    let process: Process
    let root: String
    let http: HTTPClient
    let tasks = Mutex<[Task<Void, Never>]>([])
    let streams = Atomic<Int>(0)
    let changes = Atomic<Int>(0)
    let errors = Atomic<Int>(0)
    let latencies = Mutex<[Double]>([])
    let maxConnections = Atomic<Int>(0)
    /// Latest CPU seconds seen per dashboard backend (by pid); a backend's CPU time only grows while it lives.
    let backendCPU = Mutex<[Int32: Double]>([:])
    let started = ContinuousClock.now
    let startCPU: (dashboard: Double, load: Double)

    /// Starts the dashboard (read-only, loopback) and the load; returns once every stream is open.
    init(ferry: String, databaseURL: String, clients: Int, pageRate: Int, pages: [String]) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ferry)
        process.arguments = ["dashboard", "--listen", "127.0.0.1:0", "--read-only", "--log-level", "error", "--database-url", databaseURL]
        // The address is logged ("ferry dashboard listening on http://127.0.0.1:PORT/"); the output is drained
        // for the whole run by a thread of its own, so the dashboard never blocks on a full pipe.
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        self.process = process
        let output = Mutex<String>("")
        let reader = pipe.fileHandleForReading
        Thread.detachNewThread {
            while true {
                let data = reader.availableData
                if data.isEmpty { return }
                output.withLock { text in
                    if text.utf8.count < 1 << 16 { text += String(decoding: data, as: UTF8.self) }
                }
            }
        }
        var found: Substring?
        let deadline = ContinuousClock.now + .seconds(30)
        while found == nil {
            found = output.withLock { $0 }.split(separator: "\n").first { $0.hasPrefix("ferry dashboard listening on ") }
            if found == nil {
                guard process.isRunning, ContinuousClock.now < deadline else {
                    throw BenchError("ferry dashboard did not start: \(output.withLock { $0 })")
                }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        let line = found!
        root = String(line.dropFirst("ferry dashboard listening on ".count).dropLast())  // without the trailing /
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = clients + 64
        http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        // From here on (opening the streams included) CPU time counts.
        startCPU = (Self.cpuSeconds(of: process.processIdentifier), Self.ownCPUSeconds())

        for _ in 0..<clients { spawn { await self.stream() } }
        while streams.load(ordering: .relaxed) < clients {
            try await Task.sleep(for: .milliseconds(50))
        }
        spawn { await self.loadPages(rate: pageRate, pages: pages) }
        spawn { await self.sampleConnections(databaseURL: databaseURL) }
    }

    private func spawn(_ body: @escaping @Sendable () async -> Void) {
        let task = Task { await body() }
        tasks.withLock { $0.append(task) }
    }

    /// One browser's event stream, held open until the load stops; counts the change events it receives.
    private func stream() async {
        do {
            let request = HTTPClientRequest(url: root + "/events")
            let response = try await http.execute(request, timeout: .hours(24))
            streams.add(1, ordering: .relaxed)
            for try await chunk in response.body {
                let text = String(buffer: chunk)
                changes.add(text.components(separatedBy: "event: change").count - 1, ordering: .relaxed)
            }
        } catch {
            if !Task.isCancelled { errors.add(1, ordering: .relaxed) }
        }
    }

    /// `rate` page loads per second, round robin over `pages`, each in its own task (a slow page does not slow
    /// the rate down: that is how browsers behave).
    private func loadPages(rate: Int, pages: [String]) async {
        let interval = Duration.seconds(1) / rate
        var next = ContinuousClock.now
        var index = 0
        while !Task.isCancelled {
            let path = pages[index % pages.count]
            index += 1
            spawn {
                let start = ContinuousClock.now
                do {
                    let response = try await self.http.execute(HTTPClientRequest(url: self.root + path), timeout: .seconds(30))
                    _ = try await response.body.collect(upTo: 32 << 20)
                    // A 404 is the batch page before the run enqueued its batch; server errors count.
                    if response.status.code >= 500 { self.errors.add(1, ordering: .relaxed) }
                    let elapsed = ContinuousClock.now - start
                    self.latencies.withLock { $0.append(elapsed.seconds * 1000) }
                } catch {
                    if !Task.isCancelled { self.errors.add(1, ordering: .relaxed) }
                }
            }
            next += interval
            try? await Task.sleep(until: next)
        }
    }

    /// The dashboard's database connections (its application_name), sampled five times a second.
    private func sampleConnections(databaseURL: String) async {
        let client = PostgresClient(configuration: PostgresConfiguration(connectionString: databaseURL, poolSize: 1))
        defer { client.close() }
        while !Task.isCancelled {
            if let count = try? await client.withConnection({ connection in
                // Client backends only: a parallel query's workers carry the leader's application_name too.
                try connection.query(
                    """
                    SELECT count(*) FROM pg_stat_activity
                     WHERE application_name = 'ferry dashboard' AND datname = current_database() AND backend_type = 'client backend'
                    """
                ).rows[0].decode(Int.self, at: 0)
            }) {
                _ = maxConnections.max(count, ordering: .relaxed)
            }
            // The backends run on this machine: their CPU time is in /proc.
            if let pids = try? await client.withConnection({ connection in
                try connection.query(
                    "SELECT pid FROM pg_stat_activity WHERE application_name = 'ferry dashboard' AND datname = current_database()"
                ).rows.map { try $0.decode(Int32.self, at: 0) }
            }) {
                backendCPU.withLock { seen in
                    for pid in pids { seen[pid] = Self.cpuSeconds(of: pid) }
                }
            }
            try? await Task.sleep(for: .milliseconds(200))
        }
    }

    /// Stops the load and the dashboard; what was seen.
    func stop() async throws -> Report {
        let running = tasks.withLock { tasks in
            defer { tasks.removeAll() }
            return tasks
        }
        let dashboardCPU = Self.cpuSeconds(of: process.processIdentifier) - startCPU.dashboard
        let loadCPU = Self.ownCPUSeconds() - startCPU.load
        let seconds = (ContinuousClock.now - started).seconds
        for task in running { task.cancel() }
        try await http.shutdown()
        for task in running { await task.value }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        let sorted = latencies.withLock { $0.sorted() }
        func percentile(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
        return Report(
            streamsOpen: streams.load(ordering: .relaxed), changesSeen: changes.load(ordering: .relaxed), pageLoads: sorted.count,
            pageErrors: errors.load(ordering: .relaxed), pageP50: percentile(0.5), pageP99: percentile(0.99),
            maxConnections: maxConnections.load(ordering: .relaxed), dashboardCPUSeconds: dashboardCPU,
            backendCPUSeconds: backendCPU.withLock { $0.values.reduce(0, +) }, loadCPUSeconds: loadCPU,
            seconds: seconds)
    }

    /// User + system CPU seconds of a child process, from /proc/PID/stat (fields 14 and 15, in clock ticks).
    static func cpuSeconds(of pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")")
        else { return 0 }
        // After "pid (comm)" the fields start at 3 (state); utime and stime are fields 14 and 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// User + system CPU seconds of this process.
    static func ownCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
