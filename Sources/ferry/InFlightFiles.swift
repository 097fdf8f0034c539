import FerryStore
import Foundation

/// The transfers of a wait that are running, with each one's rate over the last few readings: what
/// `ferry wait --progress` lists under its summary (as rclone -P does).
struct InFlightFiles {
    struct File: Equatable {
        var jobID: UUID
        var source: String
        var destination: String
        var bytesDone: Int64
        var bytesTotal: Int64?
        /// Bytes per second, once two readings are far enough apart.
        var rate: Double?
    }

    /// Transfers listed at most: the rest are counted.
    static let shown = 5
    private var rates = [UUID: RateEstimator]()
    private(set) var files = [File]()

    /// Takes a reading of the running jobs (`ferry.job_status`, live bytes included).
    mutating func update(_ rows: [JobStatusRow], at now: ContinuousClock.Instant) {
        var next = [UUID: RateEstimator]()
        files = rows.filter { $0.state == "running" }.map { row in
            var estimator = rates[row.jobID] ?? RateEstimator(window: .seconds(5))
            estimator.add(at: now, bytes: row.bytesDone, jobs: 0)
            next[row.jobID] = estimator
            return File(jobID: row.jobID, source: row.source, destination: row.destination, bytesDone: row.bytesDone,
                        bytesTotal: row.bytesTotal, rate: estimator.bytesPerSecond)
        }
        rates = next
    }

    /// One line per file: `  photos/a.jpg → s3://b/a.jpg  45.0%  12.0 MiB/27.0 MiB  1.2 MiB/s`, fitted to `width`.
    /// A transfer whose bytes have all gone (a small file goes in one piece, at once) but that has not ended says
    /// so, instead of a 99.9 % that looks stuck: the service is still confirming, or the file is being checked.
    static func line(_ file: File, width: Int) -> String {
        var figures = [String]()
        if let total = file.bytesTotal, total > 0, file.bytesDone >= total {
            figures.append("all \(TablePrinter.bytes(total)) moved, finishing (the service confirming, or the file checked)")
        } else if let total = file.bytesTotal, total > 0 {
            figures.append(String(format: "%.1f%%", min(99.9, Double(file.bytesDone) / Double(total) * 100)))
            figures.append(TablePrinter.bytes(file.bytesDone) + "/" + TablePrinter.bytes(total))
        } else {
            figures.append(TablePrinter.bytes(file.bytesDone) + " (size unknown)")
        }
        if file.bytesTotal.map({ $0 <= 0 || file.bytesDone < $0 }) ?? true {
            figures.append(file.rate.map { TablePrinter.bytes(Int64($0)) + "/s" } ?? "measuring")
        }
        let tail = "  " + figures.joined(separator: "  ")
        let route = Self.plain(file.source) + " → " + Self.plain(file.destination)
        let room = max(10, width - 2 - tail.count)
        // The end of a long path says most (the file's name): cut from the front.
        let fitted = route.count > room ? "…" + String(route.suffix(room - 1)) : route
        return String(("  " + fitted + tail).prefix(max(1, width)))
    }

    /// A producer's text without control characters: paths are shown on a terminal.
    static func plain(_ text: String) -> String {
        String(text.unicodeScalars.map { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? "?" : Character($0) })
    }
}
