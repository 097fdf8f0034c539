import FerryCore
import FerryStore
import Foundation
import Hummingbird

extension Dashboard {
    /// At most this many jobs in one selection (a page of a batch is 50; a group of failures shows 20).
    static let maxSelection = 1000

    /// `POST {base}/bulk/ACTION`: cancel, retry or discard a selection (`job=ID`, repeated) or every job matching a
    /// batch's filter (`scope=filter`, `batch=NAME`, optional `status=STATE` and `q=TEXT`: what the batch page
    /// shows, across all its pages). The same store calls and rules as `ferry cancel` / `retry` / `discard` (one
    /// event append per job, by ferry dashboard), behind the same guard as every action. Browsers go back to the
    /// batch (with its filter) or to the failures page; scripts get the outcomes as JSON.
    func bulk(_ request: Request, _ context: DashboardRequestContext, action: String) async throws -> Response {
        guard Self.jobActions.contains(action) else { return problem(request, .notFound, "unknown action \(action)") }
        let (refusal, fields) = try await authorize(request, context, action: "bulk " + action)
        if let refusal { return refusal }
        func given(_ name: String) -> String? { fields[name].flatMap { $0.isEmpty ? nil : $0 } }
        let batch = given("batch")
        let target: FerryStore.JobFilter
        let what: String
        var back = batch.map { "/batches/" + HTML.component($0) } ?? "/failed"
        if fields["scope"] == "filter" {
            guard let batch else { return problem(request, .badRequest, "scope=filter needs batch=NAME") }
            let state = given("status")
            if let state, !Self.states.contains(state) {
                return problem(request, .badRequest, "status= must be one of \(Self.states.joined(separator: ", "))")
            }
            let search = given("q")
            target = .matching(batch: batch, state: state, search: search)
            let query = [state.map { "status=" + HTML.component($0) }, search.map { "q=" + HTML.component($0) }].compactMap { $0 }
            if !query.isEmpty { back += "?" + query.joined(separator: "&") }
            let filter = [state.map { "status \($0)" }, search.map { "text “\($0)”" }].compactMap { $0 }
            what = "of batch “\(batch)”" + (filter.isEmpty ? "" : " matching " + filter.joined(separator: " and "))
        } else {
            let texts = fields.all("job")
            guard !texts.isEmpty else {
                return problem(request, .badRequest, "select at least one job (job=ID), or send scope=filter with batch=NAME")
            }
            guard texts.count <= Self.maxSelection else {
                return problem(request, .badRequest, "at most \(Self.maxSelection) jobs at once; act on the filter instead (scope=filter)")
            }
            var ids = [UUID]()
            for text in texts {
                guard let id = UUID(uuidString: text) else { return problem(request, .badRequest, "job= must be a job id (a UUID)") }
                ids.append(id)
            }
            target = .jobs(ids)
            what = "among the \(ids.count) selected"
        }
        if let answer = await confirmation(request, fields: fields, action: action, target: target, what: what, back: back) {
            return answer
        }
        return await perform(request, action: action, target: target, back: back, fields: fields)
    }
}
