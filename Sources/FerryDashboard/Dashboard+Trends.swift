import FerryCore
import FerryStore
import Foundation

extension Dashboard {
    /// Trends: jobs finished, failures and bytes over the last hour, day or week (`range`), for every job or one
    /// queue, account or provider, from the rollups of `ferry.trends` (their newest minutes from the jobs).
    func trends(range: TrendRange, filter: TrendFilter, _ view: DashboardView) async throws -> DashboardPage {
        let now = Date()
        let since = range.since(now)
        let key = "trends:\(range.rawValue):\(filter.queue ?? "")\u{0}\(filter.account ?? "")\u{0}\(filter.provider ?? "")"
        let rows = try await shared.value(key) { [store] in
            try await store.reads.trends(since: since, stepSeconds: range.stepSeconds, filter: filter)
        }
        let keys = try await shared.value("trend_keys") { [store] in try await store.reads.trendKeys() }
        let chart = TrendChart(rows, range: range, now: now)
        var html = Self.trendControls(base: base, range: range, filter: filter, keys: keys)
        html += chart.html
        let json: JSONValue = .object([
            "range": .string(range.rawValue), "step_seconds": .int(Int64(range.stepSeconds)),
            "since": .string(ScheduleTime.iso8601(since)),
            "queue": filter.queue.map(JSONValue.string) ?? .null, "account": filter.account.map(JSONValue.string) ?? .null,
            "provider": filter.provider.map(JSONValue.string) ?? .null,
            "finished": .int(chart.finished), "failed": .int(chart.failed), "bytes": .int(chart.bytes),
            "buckets": .array(rows.map(\.json)),
        ])
        return DashboardPage(title: "Trends", html: html, json: json)
    }

    /// The range links (keeping the filter) and a GET form choosing a queue, account and provider (keeping the range).
    static func trendControls(base: String, range: TrendRange, filter: TrendFilter, keys: [TrendKey]) -> String {
        let b = HTML.escape(base)
        var query = [String]()
        if let queue = filter.queue { query.append("queue=" + HTML.component(queue)) }
        if let account = filter.account { query.append("account=" + HTML.component(account)) }
        if let provider = filter.provider { query.append("provider=" + HTML.component(provider)) }
        let links = TrendRange.allCases.map { option in
            let href = "\(b)/trends?" + (["range=" + option.rawValue] + query).joined(separator: "&amp;")
            return option == range
                ? "<b id=\"range-\(option.rawValue)\">\(option.label)</b>"
                : "<a id=\"range-\(option.rawValue)\" href=\"\(href)\">\(option.label)</a>"
        }.joined(separator: " · ")
        func select(_ name: String, _ values: [String], _ chosen: String?) -> String {
            let options = (chosen.map { values.contains($0) ? values : values + [$0] } ?? values).map { value in
                "<option value=\"\(HTML.escape(value))\"\(value == chosen ? " selected" : "")>\(HTML.escape(value))</option>"
            }.joined()
            return "<label>\(name) <select name=\"\(name)\"><option value=\"\">all</option>\(options)</select></label> "
        }
        let queues = Set(keys.map(\.queue)).sorted()
        let accounts = Set(keys.map(\.account)).filter { !$0.isEmpty }.sorted()
        let providers = Set(keys.map(\.provider)).filter { !$0.isEmpty }.sorted()
        return "<p class=\"ranges\">\(links)</p>"
            + "<form class=\"trend-filter\" method=\"get\" action=\"\(b)/trends\"><input type=\"hidden\" name=\"range\" value=\"\(range.rawValue)\">"
            + select("queue", queues, filter.queue) + select("account", accounts, filter.account)
            + select("provider", providers, filter.provider) + "<button>Show</button></form>"
    }
}
