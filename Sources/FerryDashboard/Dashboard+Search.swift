import FerryCore
import FerryStore
import Foundation

extension Dashboard {
    /// The search box (a GET form to `/search`), on the overview and atop the results, with the filters that list
    /// jobs of every batch by state, queue and account instead.
    func searchBox(_ view: DashboardView, _ text: String = "", filter: JobListFilter = JobListFilter()) -> String {
        let states = [""] + JobState.allCases.map(\.rawValue)
        let options = states.map { state in
            "<option value=\"\(state)\"\(filter.state?.rawValue == state || (state.isEmpty && filter.state == nil) ? " selected" : "")>"
                + (state.isEmpty ? "any state" : state) + "</option>"
        }
        return "<form class=\"search\" method=\"get\" action=\"\(HTML.escape(base))/search\">"
            + "<input name=\"q\" id=\"search-box\" value=\"\(HTML.escape(text))\" "
            + "placeholder=\"job id, path or error text, error:CODE or KEY=VALUE\" aria-label=\"search jobs\"> <button>Search</button>"
            + " <span class=\"filters\">or list by <select name=\"state\" id=\"filter-state\" aria-label=\"state\">\(options.joined())</select>"
            + " <input name=\"queue\" id=\"filter-queue\" value=\"\(HTML.escape(filter.queue ?? ""))\" placeholder=\"queue\" aria-label=\"queue\" size=\"10\">"
            + " <input name=\"account\" id=\"filter-account\" value=\"\(HTML.escape(filter.account ?? ""))\" placeholder=\"account\" aria-label=\"account\" size=\"10\">"
            + " <input name=\"provider\" id=\"filter-provider\" value=\"\(HTML.escape(filter.provider ?? ""))\" placeholder=\"provider\" aria-label=\"provider\" size=\"10\">"
            + "</span></form>"
    }

    /// The filters of `/search` (`state`, `queue`, `account`; empty ones ignored), or why they cannot be used.
    static func listFilter(_ query: FormFields) -> Result<JobListFilter, JobSearchError> {
        var filter = JobListFilter()
        if let text = query["state"], !text.isEmpty {
            guard let state = JobState(rawValue: text) else {
                return .failure(JobSearchError(.empty, "state= must be one of \(JobState.allCases.map(\.rawValue).joined(separator: ", "))"))
            }
            filter.state = state
        }
        for (name, value) in [("queue", query["queue"]), ("account", query["account"]), ("provider", query["provider"])] {
            guard let value, !value.isEmpty else { continue }
            guard value.count <= 200 else { return .failure(JobSearchError(.tooLong, "\(name)= takes at most 200 characters")) }
            switch name {
            case "queue": filter.queue = value
            case "account": filter.account = value
            default: filter.provider = value
            }
        }
        return .success(filter)
    }

    /// Jobs of every batch by state, queue and account, newest first (among the newest
    /// ``FerryReads/jobListScanLimit`` of the state): the filters of the search box. Search text is not combined
    /// with them (each reads by its own index); the page says which was used.
    func list(_ filter: JobListFilter, text: String?, _ view: DashboardView) async throws -> DashboardPage {
        var html = searchBox(view, "", filter: filter)
        let jobs = try await store.reads.listJobs(filter, limit: FerryReads.searchPageSize)
        let named = [
            filter.state.map { "state \($0.rawValue)" }, filter.queue.map { "queue \($0)" }, filter.account.map { "account \($0)" },
            filter.provider.map { "provider \($0)" },
        ].compactMap { $0 }.joined(separator: ", ")
        if let text, !text.isEmpty {
            html += "<p class=\"err\" id=\"search-error\">Listed by the filters only: search text and filters are not combined; clear the filters to search for \(HTML.escape(text)).</p>"
        }
        html += "<p id=\"search-kind\">\(jobs.isEmpty ? "No" : "\(jobs.count)") job(s) of every batch with \(HTML.escape(named)), newest first "
            + "(among the newest \(FerryReads.jobListScanLimit) of the state)</p>"
        html += Self.jobTable(jobs, view)
        var filters: [String: JSONValue] = [:]
        filters["state"] = filter.state.map { .string($0.rawValue) } ?? .null
        filters["queue"] = filter.queue.map { .string($0) } ?? .null
        filters["account"] = filter.account.map { .string($0) } ?? .null
        filters["provider"] = filter.provider.map { .string($0) } ?? .null
        return DashboardPage(title: "Jobs", html: html, json: .object(["filter": .object(filters), "jobs": .array(jobs.map(\.json))]))
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
        html += "<p id=\"search-kind\">\(jobs.isEmpty ? "No" : "\(jobs.count)\(next == nil ? "" : "+")") job(s) by \(Self.describe(search)), newest first</p>"
        html += Self.jobTable(jobs, view)
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

    /// The jobs a listing or a search found, one row each, as both pages show them.
    static func jobTable(_ jobs: [JobStatusRow], _ view: DashboardView) -> String {
        let now = Date()
        return view.table(
            ["job", "batch", "status", "source", "destination", "last error", "enqueued"],
            jobs.map { job in
                [view.jobLink(job.jobID), job.batch.map { view.batchLink($0) } ?? "", view.status(job.status),
                 HTML.escape(job.source), HTML.escape(job.destination),
                 "<span class=\"err\">\(HTML.escape(job.lastError ?? ""))</span>", DashboardView.time(job.enqueuedAt, now: now)]
            })
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
