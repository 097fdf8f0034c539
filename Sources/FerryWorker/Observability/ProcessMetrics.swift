import FerryStore
import Foundation
import Prometheus
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The standard `process_*` metrics every Prometheus client exports (CPU, resident and virtual memory, open and
/// maximum file descriptors, start time), read from `/proc/self` at each scrape, and `ferry_build_info` (always 1,
/// labelled with the release and the schema version it expects), so dashboards can join on versions.
final class ProcessMetrics: Sendable {
    private let cpu: Counter
    private let resident: Gauge
    private let virtual: Gauge
    private let openFDs: Gauge
    private let maxFDs: Gauge
    /// CPU seconds already added to the counter (it only goes up by the difference).
    private let cpuCounted = Mutex<Double>(0)

    init(registry: PrometheusCollectorRegistry) {
        cpu = registry.makeCounter(
            descriptor: MetricNameDescriptor(metricName: "process_cpu", unitName: "seconds_total", helpText: "Total user and system CPU time spent in seconds."))
        resident = registry.makeGauge(
            descriptor: MetricNameDescriptor(metricName: "process_resident_memory", unitName: "bytes", helpText: "Resident memory size in bytes."))
        virtual = registry.makeGauge(
            descriptor: MetricNameDescriptor(metricName: "process_virtual_memory", unitName: "bytes", helpText: "Virtual memory size in bytes."))
        openFDs = registry.makeGauge(descriptor: MetricNameDescriptor(metricName: "process_open_fds", unitName: "", helpText: "Number of open file descriptors."))
        maxFDs = registry.makeGauge(descriptor: MetricNameDescriptor(metricName: "process_max_fds", unitName: "", helpText: "Maximum number of open file descriptors."))
        let start = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                metricName: "process_start_time", unitName: "seconds", helpText: "Start time of the process since unix epoch in seconds."))
        start.set(to: Self.startTime() ?? Date().timeIntervalSince1970)
        registry.makeGauge(
            descriptor: MetricNameDescriptor(metricName: "ferry_build_info", unitName: "", helpText: "Always 1: the Ferry release and the schema version it expects."),
            labels: [("version", FerryRelease.version), ("schema", "\(FerryRelease.schemaVersion)")]
        ).set(to: 1)
        update()
    }

    /// Reads the current figures; called before each scrape.
    func update() {
        let pageSize = Double(sysconf(Int32(_SC_PAGESIZE)))
        if let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) {
            let fields = statm.split(separator: " ").compactMap { Double($0) }
            if fields.count >= 2 {
                virtual.set(to: fields[0] * pageSize)
                resident.set(to: fields[1] * pageSize)
            }
        }
        if let stat = Self.statFields() {
            let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
            // utime and stime are fields 14 and 15 of /proc/self/stat (indices 11 and 12 after the command).
            if stat.count > 12, let user = Double(stat[11]), let system = Double(stat[12]), ticks > 0 {
                let total = (user + system) / ticks
                let delta = cpuCounted.withLock { counted -> Double in
                    defer { counted = max(counted, total) }
                    return max(0, total - counted)
                }
                if delta > 0 { cpu.increment(by: delta) }
            }
        }
        if let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") { openFDs.set(to: Double(entries.count)) }
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 { maxFDs.set(to: Double(limit.rlim_cur)) }
    }

    /// The fields of `/proc/self/stat` after the command name (which may contain spaces).
    private static func statFields() -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else {
            return nil
        }
        return stat[stat.index(after: close)...].split(separator: " ")
    }

    /// Boot time plus the process's start (field 22, in clock ticks after boot).
    private static func startTime() -> Double? {
        guard let fields = statFields(), fields.count > 19, let ticksAfterBoot = Double(fields[19]),
            let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = stat.split(separator: "\n").first(where: { $0.hasPrefix("btime ") }),
            let boot = Double(line.dropFirst("btime ".count))
        else { return nil }
        return boot + ticksAfterBoot / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
