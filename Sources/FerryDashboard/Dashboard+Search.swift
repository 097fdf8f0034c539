import FerryCore
import FerryStore
import Foundation

extension Dashboard {
    /// The search box (a GET form to `/search`), on the overview and atop the results.
    func searchBox(_ view: DashboardView, _ text: String = "") -> String {
        "<form class=\"search\" method=\"get\" action=\"\(HTML.escape(base))/search\">"
            + "<input name=\"q\" id=\"search-box\" value=\"\(HTML.escape(text))\" "
            + "placeholder=\"job id, path or error text, error:CODE or KEY=VALUE\" aria-label=\"search jobs\"> <button>Search</button></form>"
    }

    /// Jobs of every batch that a search finds (``JobSearch``), newest first, 50 a page by keyset (`?before=ID`).
    /// Unsearchable text answers the page with the reason (JSON: `error`) rather than an empty list.
    func search(_ text: String?, before: UUID?, _ view: DashboardView) async throws -> DashboardPage {
        var html = searchBox(view, text ?? "")
        guard let text, !text.isEmpty else {
            html += "<p>Search every batch: a job id or its start, text anywhere in a source or destination or in the last "
                + "error of the newest \(JobSearch.errorTextScanLimit) failed jobs (<code>path:TEXT</code> or <code>error:TEXT</code> for one of them), "
                + "<code>error:CODE</code> (as the failures page groups them) or <code>KEY=VALUE</code> of the metadata.</p>"
            return DashboardPage(title: "Search", html: html, json: .object(["query": .null, "jobs": .array([])]))
        }
        let search: JobSearch
        do {
            search = try JobSearch(parsing: text)
        } catch {
            html += "<p class=\"err\" id=\"search-error\">\(HTML.escape(error.message))</p>"
            return DashboardPage(
                title: "Search", html: html,
                json: .object(["query": .string(text), "error": .string(error.message), "code": .string(error.code.rawValue),
                               "jobs": .array([])]))
        }
        let jobs = try await store.reads.searchJobs(search, before: before)
        let next = jobs.count == FerryReads.searchPageSize ? jobs.last?.jobID : nil
        let now = Date()
        html += "<p id=\"search-kind\">\(jobs.isEmpty ? "No" : "\(jobs.count)\(next == nil ? "" : "+")") job(s) by \(Self.describe(search)), newest first</p>"
        html += view.table(
            ["job", "batch", "status", "source", "destination", "last error", "enqueued"],
            jobs.map { job in
                [view.jobLink(job.jobID), job.batch.map { view.batchLink($0) } ?? "", view.status(job.status),
                 HTML.escape(job.source), HTML.escape(job.destination),
                 "<span class=\"err\">\(HTML.escape(job.lastError ?? ""))</span>", DashboardView.time(job.enqueuedAt, now: now)]
            })
        if let next {
            html += "<a id=\"next\" href=\"\(HTML.escape(base))/search?q=\(HTML.escape(HTML.component(text)))"
                + "&amp;before=\(next.uuidString.lowercased())\">older →</a>"
        }
        let json: JSONValue = .object([
            "query": .string(text), "kind": .string(search.kind), "jobs": .array(jobs.map(\.json)),
            "next_before": next.map { .string($0.uuidString.lowercased()) } ?? .null,
        ])
        return DashboardPage(title: "Search", html: html, json: json)
    }

    /// What a search looked at, in the words of the page: error text names its bound, so that an old failure not
    /// found is not taken for no failure.
    static func describe(_ search: JobSearch) -> String {
        switch search {
        case .text: "path or error text (errors of the newest \(JobSearch.errorTextScanLimit) failed jobs)"
        case .errorText: "error text (of the newest \(JobSearch.errorTextScanLimit) failed jobs)"
        default: search.kind
        }
    }
}
