import FerryStore
import Foundation
import Postgres

/// The overview's chart of the last hour: finished jobs and bytes per minute, as inline SVG bars (server-rendered,
/// no script), one bar per minute, the newest on the right, drawn as the trends page draws them (with axes).
struct ThroughputChart {
    /// Per minute (oldest first, 60 of them ending at `now`): succeeded, failed, bytes.
    var minutes: [(succeeded: Int64, failed: Int64, bytes: Int64)]

    /// When the page is drawn: the newest minute is the one it falls in.
    let now: Date

    init(_ rows: [ThroughputRow], now: Date) {
        self.now = now
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

    /// The two charts with the trends page's axes (a value axis in jobs or bytes per minute, UTC times below).
    var html: String {
        let since = TrendRange.hour.since(now)
        let rows = minutes.enumerated().map { index, minute in
            TrendRow(bucket: PostgresTimestamp(since.addingTimeInterval(Double(index * 60))),
                     succeeded: minute.succeeded, failed: minute.failed, bytes: minute.bytes)
        }
        let chart = TrendChart(rows, range: .hour, now: now)
        return "<div class=\"charts\">"
            + chart.chart(id: "chart-jobs", title: "Jobs per minute (failed in red): \(chart.finished) in the last hour",
                          values: chart.buckets.map { Double($0.succeeded + $0.failed) }, overlay: chart.buckets.map { Double($0.failed) },
                          unit: { TrendChart.count($0) + "/min" })
            + chart.chart(id: "chart-bytes", title: "Bytes per minute: \(DashboardView.bytes(chart.bytes)) in the last hour",
                          values: chart.buckets.map { Double($0.bytes) }, overlay: nil, unit: { DashboardView.bytes(Int64($0)) + "/min" })
            + "</div>"
    }

}
