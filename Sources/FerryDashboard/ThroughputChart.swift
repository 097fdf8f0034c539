import FerryStore
import Foundation

/// The overview's chart of the last hour: finished jobs and bytes per minute, as inline SVG bars (server-rendered,
/// no script), one bar per minute, the newest on the right.
struct ThroughputChart {
    /// Per minute (oldest first, 60 of them ending at `now`): succeeded, failed, bytes.
    var minutes: [(succeeded: Int64, failed: Int64, bytes: Int64)]

    init(_ rows: [ThroughputRow], now: Date) {
        let newest = Int64(now.timeIntervalSince1970 / 60)
        var minutes = Array(repeating: (succeeded: Int64(0), failed: Int64(0), bytes: Int64(0)), count: 60)
        for row in rows {
            let index = 59 - Int(newest - Int64(row.minute.date.timeIntervalSince1970 / 60))
            guard minutes.indices.contains(index) else { continue }
            minutes[index].succeeded += row.succeeded
            minutes[index].failed += row.failed
            minutes[index].bytes += row.bytes
        }
        self.minutes = minutes
    }

    var html: String {
        let jobs = minutes.map { Double($0.succeeded + $0.failed) }
        let failed = minutes.map { Double($0.failed) }
        let bytes = minutes.map { Double($0.bytes) }
        let totalJobs = minutes.reduce(Int64(0)) { $0 + $1.succeeded + $1.failed }
        let totalBytes = minutes.reduce(Int64(0)) { $0 + $1.bytes }
        return "<div class=\"charts\">"
            + Self.bars(jobs, overlay: failed, label: "jobs per minute (failed in red), \(totalJobs) in the last hour", id: "chart-jobs",
                        peak: "\(Int64(jobs.max() ?? 0))/min")
            + Self.bars(bytes, overlay: nil, label: "bytes per minute, \(DashboardView.bytes(totalBytes)) in the last hour", id: "chart-bytes",
                        peak: DashboardView.bytes(Int64(bytes.max() ?? 0)) + "/min")
            + "</div>"
    }

    static func bars(_ values: [Double], overlay: [Double]?, label: String, id: String, peak: String) -> String {
        let width = 360.0, height = 60.0, step = width / Double(values.count)
        let top = max(values.max() ?? 0, 1)
        var svg = "<figure id=\"\(id)\"><svg viewBox=\"0 0 \(Int(width)) \(Int(height))\" width=\"\(Int(width))\" height=\"\(Int(height))\" role=\"img\" aria-label=\"\(HTML.escape(label))\">"
        for (index, value) in values.enumerated() where value > 0 {
            let h = max(1, value / top * (height - 2))
            svg += "<rect x=\"\(format(Double(index) * step))\" y=\"\(format(height - h))\" width=\"\(format(step - 1))\" height=\"\(format(h))\" fill=\"#3a7bd5\"/>"
            if let overlay, overlay[index] > 0 {
                let f = max(1, overlay[index] / top * (height - 2))
                svg += "<rect x=\"\(format(Double(index) * step))\" y=\"\(format(height - f))\" width=\"\(format(step - 1))\" height=\"\(format(f))\" fill=\"#b00020\"/>"
            }
        }
        svg += "</svg><figcaption>\(HTML.escape(label)); peak \(HTML.escape(peak))</figcaption></figure>"
        return svg
    }

    private static func format(_ value: Double) -> String { String(format: "%.1f", value) }
}
