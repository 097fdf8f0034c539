import FerryStore
import FerryTestSupport
import Foundation
import Postgres
@testable import FerryDashboard
import Testing

/// The trends page's charts: buckets placed by time, value axes with units, time axes in UTC, failure rate.
@Suite("dashboard trend charts", .tags(.fast))
struct TrendChartTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000 + 30)  // 2027-01-15 08:00:30 UTC

    static func row(_ date: Date, succeeded: Int64, failed: Int64, bytes: Int64) -> TrendRow {
        TrendRow(bucket: PostgresTimestamp(date), succeeded: succeeded, failed: failed, bytes: bytes)
    }

    @Test("an hour: 60 minute buckets ending with the current one; rows land in their minute, older ones are left out")
    func hourBuckets() {
        let range = TrendRange.hour
        let since = range.since(Self.now)
        #expect(since == Date(timeIntervalSince1970: 1_800_000_000 - 59 * 60))
        let rows = [
            Self.row(since, succeeded: 3, failed: 1, bytes: 4096),
            Self.row(Date(timeIntervalSince1970: 1_800_000_000), succeeded: 2, failed: 2, bytes: 2 * 1_048_576),
            Self.row(since.addingTimeInterval(-60), succeeded: 100, failed: 0, bytes: 0),
        ]
        let chart = TrendChart(rows, range: range, now: Self.now)
        #expect(chart.buckets.count == 60)
        #expect(chart.buckets[0] == (3, 1, 4096) && chart.buckets[59] == (2, 2, 2 * 1_048_576))
        #expect(chart.finished == 8 && chart.failed == 3)
        let html = chart.html
        // Axes with units: the jobs chart's top is the busiest minute, the bytes chart's in binary units, the rate in %.
        #expect(html.contains(">4/min</text>") && html.contains(">2/min</text>") && html.contains(">0/min</text>"), "\(html)")
        #expect(html.contains(">2.0 MiB/min</text>") && html.contains(">100 %</text>") && html.contains(">50 %</text>"))
        // Time axis: first, middle and current minute in UTC.
        #expect(html.contains(">07:01 UTC</text>") && html.contains(">08:00 UTC</text>"), "\(html)")
        #expect(html.contains("8 in the last hour") && html.contains("37.5 % of 8 jobs failed"))
    }

    @Test("a week: 168 hour buckets labelled with the date; a day: 96 quarter hours")
    func weekAndDay() {
        let week = TrendChart([Self.row(Date(timeIntervalSince1970: 1_800_000_000 - 3 * 86400), succeeded: 5, failed: 0, bytes: 10)],
                              range: .week, now: Self.now)
        #expect(week.buckets.count == 168 && week.buckets[167 - 72].succeeded == 5)
        #expect(week.html.contains(">01-15 08:00 UTC</text>") && week.html.contains(">01-08 09:00 UTC</text>"), "\(week.html)")
        #expect(week.html.contains("5/h</text>"))
        let day = TrendChart([], range: .day, now: Self.now)
        #expect(day.buckets.count == 96 && day.html.contains("0 in the last 24 hours"))
        #expect(day.html.contains(">1/15 min</text>"), "an empty chart still has an axis")
        #expect(day.html.components(separatedBy: ">0 B/15 min</text>").count == 2, "half of 1 B is not labelled 0 B again")
    }

    @Test("queue, account and provider names are escaped in the menus and links; the chosen ones stay chosen")
    func hostileNames() {
        let evil = "<script>alert(1)</script>\"&x"
        let keys = [TrendKey(queue: evil, account: "acct one", provider: "s3"), TrendKey(queue: "q", account: "", provider: "")]
        let html = Dashboard.trendControls(base: "/ferry", range: .day, filter: TrendFilter(queue: evil, provider: "s3"), keys: keys)
        #expect(!html.contains("<script") && html.contains("&lt;script&gt;"), "\(html)")
        #expect(html.contains("<option value=\"s3\" selected>") && html.contains("<option value=\"acct one\">"))
        #expect(!html.contains("<option value=\"\"></option>"), "no empty account or provider choice besides all")
        // The range links keep the filter, percent-encoded; the current range is not a link.
        #expect(html.contains("<b id=\"range-24h\">") && html.contains("href=\"/ferry/trends?range=7d&amp;queue=%3Cscript%3E"), "\(html)")
    }
}
