import FerryStore
import Foundation
import Postgres

/// Renders the dashboard's HTML pages. Every value from the database goes through `HTML.escape`.
struct DashboardView {
    let base: String
    let readOnly: Bool
    /// This browser's CSRF token, put in every form that posts: bound to its session once logged in, else to its
    /// login cookie.
    let csrf: String
    let loggedIn: Bool
    /// What the last action did ("10 jobs requeued"), shown above the page; plain text, escaped here.
    var flash: String? = nil
    /// Who the sign-in proxy says this is, and whether they only read: shown instead of the token login form.
    var proxyUser: (name: String, isOperator: Bool)? = nil

    /// Whether this viewer gets action buttons: not on a read-only dashboard, and only once logged in (every
    /// action needs a session or a token; a button would only answer 401).
    var canAct: Bool { !readOnly && loggedIn }

    /// The page around `body`. `refreshAfter`: the page may not show the last change yet (it used a value read
    /// before it), and the browser looks again after that long.
    func page(title: String, _ body: String, refreshAfter: Duration? = nil) -> String {
        let b = HTML.escape(base)
        let refresh = refreshAfter.map { " data-refresh-after=\"\(Self.milliseconds($0))\"" } ?? ""
        let links = [("", "Overview"), ("/batches", "Batches"), ("/queues", "Queues"), ("/trends", "Trends"), ("/failed", "Failed &amp; held"), ("/workers", "Workers"),
                     ("/schedules", "Schedules"), ("/accounts", "Accounts")]
            .map { "<a href=\"\(b)\($0.0.isEmpty ? "/" : $0.0)\">\($0.1)</a>" }.joined()
        let login =
            readOnly
            ? ""
            : proxyUser.map { "<span id=\"logged-in\">\(HTML.escape($0.name))\($0.isOperator ? "" : " (viewer)")</span>" }
            ?? (loggedIn
                ? "<span id=\"logged-in\">logged in</span><form class=\"inline\" id=\"logout\" method=\"post\" action=\"\(b)/logout\">\(csrfField)<button>Log out</button></form>"
                : "<form class=\"inline\" method=\"post\" action=\"\(b)/login\">\(csrfField)<input type=\"password\" name=\"token\" placeholder=\"dashboard token\"><button>Log in</button></form>")
        return """
            <!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>\(HTML.escape(title)) · ferry</title>
            <style>\(DashboardAssets.css)</style></head>
            <body data-base="\(b)"\(refresh)><header><b>ferry</b><nav>\(links)</nav><span id="live-state">…</span>\(login)</header>
            <main><h2>\(HTML.escape(title))</h2>\(flash.map { "<p id=\"flash\" role=\"status\">\(HTML.escape($0))</p>" } ?? "")<div id="live">\(body)</div></main>
            <script>\(DashboardAssets.script)</script></body></html>
            """
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    var csrfField: String { "<input type=\"hidden\" name=\"csrf\" value=\"\(HTML.escape(csrf))\">" }

    func actionButton(_ path: String, _ label: String) -> String {
        guard canAct else { return "" }
        return "<form class=\"inline\" method=\"post\" action=\"\(HTML.escape(base + path))\">\(csrfField)<button class=\"action\">\(label)</button></form>"
    }

    /// A checkbox that puts job `id` in the bulk form `form`, joined by the `form` attribute: the bulk form cannot
    /// enclose rows that hold action forms of their own. None when read-only.
    func selectBox(_ id: UUID, form: String) -> String {
        guard canAct else { return "" }
        return "<input type=\"checkbox\" name=\"job\" value=\"\(id.uuidString.lowercased())\" form=\"\(HTML.escape(form))\" aria-label=\"select\">"
    }

    /// The bulk form `id` (`POST {base}/bulk/ACTION`): `fields` (hidden inputs, escaped by the caller), a box that
    /// selects every job on the page, one button per action (path, label) for the selection and, when `filter`
    /// describes one (HTML), one per action for every job matching it. None when read-only.
    func bulkForm(id: String, fields: String, actions: [(String, String)], filter: String?) -> String {
        guard canAct, let first = actions.first else { return "" }
        let path = HTML.escape(base) + "/bulk/"
        var html = "<form class=\"bulk\" id=\"\(HTML.escape(id))\" method=\"post\" action=\"\(path)\(first.0)\">\(csrfField)\(fields)"
            + "<label><input type=\"checkbox\" class=\"select-all\" data-form=\"\(HTML.escape(id))\"> all on this page</label> "
        html += actions.map { "<button class=\"action\" formaction=\"\(path)\($0.0)\">\($0.1) selected</button>" }.joined(separator: " ")
        if let filter {
            html += " <span class=\"bulk-filter\">every job \(filter):</span> " + actions.map {
                "<button class=\"action\" name=\"scope\" value=\"filter\" formaction=\"\(path)\($0.0)\">\($0.1) all</button>"
            }.joined(separator: " ")
        }
        return html + "</form>"
    }

    /// A table of HTML cells (already escaped); `rowIDs`, when given, become each row's `id` (escaped here).
    /// A form that posts `fields` (HTML, escaped by the caller) with the CSRF token; hidden when read-only.
    func actionForm(_ path: String, _ label: String, fields: String) -> String {
        guard canAct else { return "" }
        return "<form class=\"inline\" method=\"post\" action=\"\(HTML.escape(base + path))\">\(csrfField)\(fields) <button class=\"action\">\(label)</button></form>"
    }

    /// A retry that changes provider options (`options`: `NAME=VALUE …`, as `ferry retry --option`), suggested by
    /// `placeholder`; hidden when read-only.
    func retryWithOptions(_ path: String, placeholder: String = "NAME=VALUE") -> String {
        actionForm(
            path, "Retry with options",
            fields: "<input name=\"options\" class=\"options\" size=\"16\" placeholder=\"\(HTML.escape(placeholder))\" aria-label=\"options for the retry\">")
    }

    ///
    /// `stack`: on a narrow screen each row becomes a block of labelled lines (CSS `table.stack`), for tables
    /// whose rows carry action buttons: in a table that scrolls sideways they would sit off-screen on a phone.
    func table(_ headers: [String], _ rows: [[String]], rowIDs: [String]? = nil, stack: Bool = false) -> String {
        let head = headers.map { "<th>\(HTML.escape($0))</th>" }.joined()
        let labels = headers.map { $0.isEmpty ? "" : " data-label=\"\(HTML.escape($0))\"" }
        let body = rows.enumerated().map { index, row in
            let id = rowIDs.map { " id=\"\(HTML.escape($0[index]))\"" } ?? ""
            return "<tr\(id)>" + row.enumerated().map { column, cell in
                let label = stack && column < labels.count ? labels[column] : ""
                return "<td\(label)>\(cell)</td>"
            }.joined() + "</tr>"
        }.joined()
        // Wide tables scroll inside their own box, so a phone never scrolls the whole page sideways.
        return "<div class=\"scroll\"><table\(stack ? " class=\"stack\"" : "")><tr>\(head)</tr>\(body)</table></div>"
    }

    func jobLink(_ id: UUID) -> String {
        let text = id.uuidString.lowercased()
        return "<a href=\"\(HTML.escape(base))/jobs/\(text)\">\(text)</a>"
    }

    func batchLink(_ batch: String) -> String {
        "<a href=\"\(HTML.escape(base))/batches/\(HTML.component(batch))\">\(HTML.escape(batch))</a>"
    }

    /// A progress bar as SVG: its width is an attribute, not an inline style the Content-Security-Policy would block.
    /// `failed` is the share (of the whole bar) of jobs that ended failed, cancelled or discarded, drawn in red after `done`.
    static func bar(_ done: Double, failed: Double = 0) -> String {
        let ok = max(0, min(1, done))
        let bad = max(0, min(1 - ok, failed))
        let percent = Self.label(ok, failed: bad)
        let okWidth = String(format: "%.1f", ok * 100)
        let badWidth = String(format: "%.1f", bad * 100)
        var svg = "<svg class=\"bar\" width=\"160\" height=\"10\" viewBox=\"0 0 100 10\" preserveAspectRatio=\"none\" role=\"img\" "
            + "aria-label=\"\(percent)\"><title>\(percent)</title><rect class=\"ok\" width=\"\(okWidth)\" height=\"10\" fill=\"#3a7bd5\"/>"
        if bad > 0 {
            svg += "<rect class=\"failed\" x=\"\(okWidth)\" width=\"\(badWidth)\" height=\"10\" fill=\"#d03040\"/>"
        }
        return svg + "</svg>"
    }

    /// A bar followed by its percent, the same figure as the bar's length.
    static func progressBar(_ done: Double, failed: Double = 0) -> String {
        let ok = max(0, min(1, done))
        let bad = max(0, min(1 - ok, failed))
        return bar(ok, failed: bad) + "<span class=\"pct\">" + label(ok, failed: bad) + "</span>"
    }

    /// The figure beside a bar: how far it got (`42.9%`); once every job ended and some did not succeed, how much
    /// did (`50.0% ok`): a batch half failed is not 100 % of anything.
    static func label(_ ok: Double, failed bad: Double) -> String {
        bad > 0 && ok + bad >= 0.9995 ? percent(ok) + "% ok" : percent(ok + bad) + "%"
    }

    /// One job's bar: what it moved, in red once the job ended without success (a failed upload at 99.9 % is not
    /// nearly done, it is failed), labelled with how it ended.
    static func jobProgressBar(_ fraction: Double, state: String) -> String {
        guard ["failed", "cancelled", "discarded"].contains(state) else { return progressBar(fraction) }
        return bar(0, failed: fraction) + "<span class=\"pct\">" + HTML.escape(state) + "</span>"
    }

    /// A fraction as a percent with one decimal, as the bar's parts are drawn; never 100.0 before the end.
    static func percent(_ fraction: Double) -> String {
        let value = max(0, min(100, fraction * 100))
        let text = String(format: "%.1f", value)
        return value < 100 && text == "100.0" ? "99.9" : text
    }

    static func age(_ seconds: Double) -> String {
        if seconds < 120 { return String(format: "%.0f s", seconds) }
        if seconds < 7200 { return String(format: "%.0f min", seconds / 60) }
        return String(format: "%.1f h", seconds / 3600)
    }

    /// Binary units (KiB, MiB, GiB), as `ferry status` prints them.
    static func bytes(_ count: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f", value) + " " + units[unit]
    }

    /// A time as "3 min ago" (or "in 3 min"), the exact UTC time in its `title` and `datetime`.
    static func time(_ timestamp: PostgresTimestamp?, now: Date = Date()) -> String {
        guard let timestamp else { return "" }
        let seconds = now.timeIntervalSince(timestamp.date)
        let text = seconds >= 0 ? Self.ago(seconds) : "in " + Self.ago(-seconds).replacingOccurrences(of: " ago", with: "")
        let exact = HTML.escape(Self.utc(timestamp.date))
        return "<time datetime=\"\(exact)\" title=\"\(exact)\">\(HTML.escape(text))</time>"
    }

    static func ago(_ seconds: Double) -> String {
        if seconds < 5 { return "just now" }
        if seconds < 60 { return String(format: "%.0f s ago", seconds) }
        if seconds < 3600 { return "\(Int(seconds / 60)) min ago" }
        if seconds < 86400 { return "\(Int(seconds / 3600)) h ago" }
        return "\(Int(seconds / 86400)) d ago"
    }

    /// `2025-01-31 12:34:56 UTC`: to the second, no microseconds.
    static func utc(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d-%02d-%02d %02d:%02d:%02d UTC", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
    }

    /// A batch's bytes as `ferry status` shows them: done of the total when every size is known; with sizes
    /// unknown, the total known so far as a lower bound, or none once done passed it; never done above a total.
    static func batchBytes(_ batch: BatchStatusRow) -> String {
        let done = bytes(batch.bytesDone)
        let unknown = "\(batch.sizesUnknown) size\(batch.sizesUnknown == 1 ? "" : "s") unknown"
        guard let total = batch.bytesTotal else { return batch.sizesUnknown > 0 ? "\(done) (\(unknown))" : done }
        if batch.sizesUnknown > 0 {
            return batch.bytesDone > total ? "\(done) (\(unknown))" : "\(done) of at least \(bytes(total)) (\(unknown))"
        }
        if batch.bytesDone > total { return "\(done) (more than the \(bytes(total)) expected)" }
        return "\(done) / \(bytes(total))"
    }

    /// Progress of a batch as the bar's two parts: `done` (succeeded; by bytes when every size is known and
    /// nothing failed, so transfers in flight move it) and `failed` (failed, cancelled and discarded jobs' share, in red).
    /// Their sum is the percent shown beside the bar.
    static func progress(_ batch: BatchStatusRow) -> (done: Double, failed: Double) {
        guard batch.jobs > 0 else { return (0, 0) }
        let jobs = Double(batch.jobs)
        let unsuccessful = Double(batch.failed + batch.cancelled + batch.discarded) / jobs
        if unsuccessful == 0, let total = batch.bytesTotal, total > 0, batch.sizesUnknown == 0 {
            // Bytes may all be done a moment before the last job is recorded: full only when every job is.
            let bytes = Double(batch.bytesDone) / Double(total)
            return (batch.succeeded == batch.jobs ? 1 : min(bytes, 0.999), 0)
        }
        return (Double(batch.succeeded) / jobs, unsuccessful)
    }

    func status(_ text: String) -> String { "<span class=\"s-\(HTML.escape(text))\">\(HTML.escape(text))</span>" }
}
