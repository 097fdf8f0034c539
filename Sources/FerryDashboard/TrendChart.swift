import FerryStore
import Foundation

/// The trends page's charts: jobs finished (failures in red), bytes moved and the failure rate per bucket of a
/// range, as server-rendered SVG with a value axis (its unit in the labels) and a UTC time axis.
struct TrendChart {
    let range: TrendRange
    let since: Date
    /// Per bucket, oldest first: succeeded, failed, bytes.
    var buckets: [(succeeded: Int64, failed: Int64, bytes: Int64)]

    init(_ rows: [TrendRow], range: TrendRange, now: Date) {
        self.range = range
        since = range.since(now)
        var buckets = Array(repeating: (succeeded: Int64(0), failed: Int64(0), bytes: Int64(0)), count: range.buckets)
        let step = Double(range.stepSeconds)
        for row in rows {
            let index = Int(((row.bucket.date.timeIntervalSince(since)) / step).rounded(.down))
            guard buckets.indices.contains(index) else { continue }
            buckets[index].succeeded += row.succeeded
            buckets[index].failed += row.failed
            buckets[index].bytes += row.bytes
        }
        self.buckets = buckets
    }

    var finished: Int64 { buckets.reduce(0) { $0 + $1.succeeded + $1.failed } }
    var failed: Int64 { buckets.reduce(0) { $0 + $1.failed } }
    var bytes: Int64 { buckets.reduce(0) { $0 + $1.bytes } }

    var html: String {
        let per = "/" + range.stepName
        let jobs = buckets.map { Double($0.succeeded + $0.failed) }
        let rate = buckets.map { $0.succeeded + $0.failed == 0 ? 0 : Double($0.failed) / Double($0.succeeded + $0.failed) * 100 }
        let failedShare = finished == 0 ? "0" : String(format: "%.1f", Double(failed) / Double(finished) * 100)
        return "<div class=\"trends\">"
            + chart(id: "trend-jobs", title: "Jobs finished per \(range.stepName) (failed in red): \(finished) in the \(range.label)",
                    values: jobs, overlay: buckets.map { Double($0.failed) }, unit: { Self.count($0) + per })
            + chart(id: "trend-bytes", title: "Bytes moved per \(range.stepName): \(DashboardView.bytes(bytes)) in the \(range.label)",
                    values: buckets.map { Double($0.bytes) }, overlay: nil, unit: { DashboardView.bytes(Int64($0)) + per })
            + chart(id: "trend-failures", title: "Failure rate per \(range.stepName): \(failedShare) % of \(finished) \(finished == 1 ? "job" : "jobs") failed",
                    values: rate, overlay: nil, unit: { String(format: "%.0f %%", $0) }, top: 100, color: "#d03040")
            + "</div>"
    }

    /// One chart: bars of `values` (and `overlay` over them in red), a value axis at 0, half and `top` (the
    /// largest value unless given) labelled by `unit`, and the time of the first, middle and last buckets below.
    func chart(id: String, title: String, values: [Double], overlay: [Double]?, unit: (Double) -> String,
               top: Double? = nil, color: String = "#3a7bd5") -> String {
        let left = 76.0, right = 8.0, plotTop = 8.0, plotHeight = 120.0, width = 720.0, height = 152.0
        let plotWidth = width - left - right
        let step = plotWidth / Double(values.count)
        let ceiling = max(top ?? values.max() ?? 0, top == nil ? 1 : 0.0001)
        let bottom = plotTop + plotHeight
        var svg = "<figure id=\"\(id)\"><figcaption>\(HTML.escape(title))</figcaption>"
            + "<svg viewBox=\"0 0 \(Int(width)) \(Int(height))\" width=\"\(Int(width))\" height=\"\(Int(height))\" role=\"img\" aria-label=\"\(HTML.escape(title))\">"
        for fraction in [0.0, 0.5, 1.0] {
            // A middle label that reads as the bottom one (half of 1 B is 0 B) says nothing: left out.
            if fraction == 0.5 && unit(ceiling * fraction) == unit(0) { continue }
            let y = bottom - fraction * plotHeight
            svg += "<line class=\"grid\" x1=\"\(f(left))\" y1=\"\(f(y))\" x2=\"\(f(width - right))\" y2=\"\(f(y))\" stroke=\"#8884\"/>"
                + "<text class=\"y-label\" x=\"\(f(left - 4))\" y=\"\(f(y + 4))\" text-anchor=\"end\" font-size=\"11\" fill=\"currentColor\">"
                + HTML.escape(unit(ceiling * fraction)) + "</text>"
        }
        for (index, value) in values.enumerated() where value > 0 {
            let x = left + Double(index) * step
            let h = max(1, value / ceiling * plotHeight)
            svg += "<rect x=\"\(f(x))\" y=\"\(f(bottom - h))\" width=\"\(f(max(step - 1, 0.5)))\" height=\"\(f(h))\" fill=\"\(color)\"><title>"
                + HTML.escape(Self.clock(bucketStart(index), range: range) + ": " + unit(value)) + "</title></rect>"
            if let overlay, overlay[index] > 0 {
                let o = max(1, overlay[index] / ceiling * plotHeight)
                svg += "<rect x=\"\(f(x))\" y=\"\(f(bottom - o))\" width=\"\(f(max(step - 1, 0.5)))\" height=\"\(f(o))\" fill=\"#d03040\"/>"
            }
        }
        for index in [0, values.count / 2, values.count - 1] {
            let x = left + (Double(index) + 0.5) * step
            let anchor = index == 0 ? "start" : index == values.count - 1 ? "end" : "middle"
            svg += "<text class=\"x-label\" x=\"\(f(index == 0 ? left : index == values.count - 1 ? width - right : x))\" y=\"\(f(height - 4))\" "
                + "text-anchor=\"\(anchor)\" font-size=\"11\" fill=\"currentColor\">" + HTML.escape(Self.clock(bucketStart(index), range: range)) + "</text>"
        }
        return svg + "</svg></figure>"
    }

    func bucketStart(_ index: Int) -> Date { since.addingTimeInterval(Double(index * range.stepSeconds)) }

    /// A bucket's start in UTC: the time of day for an hour or a day, the date and hour for a week.
    static func clock(_ date: Date, range: TrendRange) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.month, .day, .hour, .minute], from: date)
        return range == .week
            ? String(format: "%02d-%02d %02d:00 UTC", c.month!, c.day!, c.hour!)
            : String(format: "%02d:%02d UTC", c.hour!, c.minute!)
    }

    /// A count with at most one decimal (an axis's half of 3 is 1.5).
    static func count(_ value: Double) -> String {
        value == value.rounded() ? String(Int64(value)) : String(format: "%.1f", value)
    }

    private func f(_ value: Double) -> String { String(format: "%.1f", value) }
}
