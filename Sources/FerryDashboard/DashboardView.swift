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

    func page(title: String, _ body: String) -> String {
        let b = HTML.escape(base)
        let links = [("", "Overview"), ("/batches", "Batches"), ("/failed", "Failed &amp; held"), ("/workers", "Workers")]
            .map { "<a href=\"\(b)\($0.0.isEmpty ? "/" : $0.0)\">\($0.1)</a>" }.joined()
        let login =
            readOnly
            ? ""
            : loggedIn
                ? "<form class=\"inline\" id=\"logout\" method=\"post\" action=\"\(b)/logout\">\(csrfField)<button>Log out</button></form>"
                : "<form class=\"inline\" method=\"post\" action=\"\(b)/login\">\(csrfField)<input type=\"password\" name=\"token\" placeholder=\"dashboard token\"><button>Log in</button></form>"
        return """
            <!doctype html><html><head><meta charset="utf-8"><title>\(HTML.escape(title)) · ferry</title>
            <style>\(DashboardAssets.css)</style></head>
            <body data-base="\(b)"><header><b>ferry</b>\(links)\(login)<span id="live-state">…</span></header>
            <main><h2>\(HTML.escape(title))</h2><div id="live">\(body)</div></main>
            <script>\(DashboardAssets.script)</script></body></html>
            """
    }

    var csrfField: String { "<input type=\"hidden\" name=\"csrf\" value=\"\(HTML.escape(csrf))\">" }

    func actionButton(_ path: String, _ label: String) -> String {
        guard !readOnly else { return "" }
        return "<form class=\"inline\" method=\"post\" action=\"\(HTML.escape(base + path))\">\(csrfField)<button class=\"action\">\(label)</button></form>"
    }

    func table(_ headers: [String], _ rows: [[String]]) -> String {
        let head = headers.map { "<th>\(HTML.escape($0))</th>" }.joined()
        let body = rows.map { "<tr>" + $0.map { "<td>\($0)</td>" }.joined() + "</tr>" }.joined()
        return "<table><tr>\(head)</tr>\(body)</table>"
    }

    func jobLink(_ id: UUID) -> String {
        let text = id.uuidString.lowercased()
        return "<a href=\"\(HTML.escape(base))/jobs/\(text)\">\(text)</a>"
    }

    func batchLink(_ batch: String) -> String {
        "<a href=\"\(HTML.escape(base))/batches/\(HTML.component(batch))\">\(HTML.escape(batch))</a>"
    }

    /// A progress bar as SVG: its width is an attribute, not an inline style the Content-Security-Policy would block.
    static func bar(_ fraction: Double) -> String {
        let percent = String(format: "%.1f", max(0, min(100, fraction * 100)))
        return "<svg class=\"bar\" width=\"160\" height=\"10\" viewBox=\"0 0 100 10\" preserveAspectRatio=\"none\" role=\"img\" "
            + "aria-label=\"\(percent)%\"><title>\(percent)%</title><rect width=\"\(percent)\" height=\"10\" fill=\"#3a7bd5\"/></svg>"
    }

    static func age(_ seconds: Double) -> String {
        if seconds < 120 { return String(format: "%.0f s", seconds) }
        if seconds < 7200 { return String(format: "%.0f min", seconds / 60) }
        return String(format: "%.1f h", seconds / 3600)
    }

    static func bytes(_ count: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(count)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f", value) + " " + units[unit]
    }

    /// Progress of a batch: by bytes when every size is known, by finished jobs otherwise.
    static func progress(_ batch: BatchStatusRow) -> Double {
        if let total = batch.bytesTotal, total > 0, batch.sizesUnknown == 0 {
            return Double(batch.bytesDone) / Double(total)
        }
        guard batch.jobs > 0 else { return 0 }
        return Double(batch.succeeded + batch.failed + batch.cancelled) / Double(batch.jobs)
    }

    func status(_ text: String) -> String { "<span class=\"s-\(HTML.escape(text))\">\(HTML.escape(text))</span>" }
}
