import FerryCore
import FerryStore
import Foundation
import Hummingbird

extension Dashboard {
    /// The form field that confirms a bulk action: the count of jobs the confirmation showed.
    static let confirmField = "confirm"

    /// Whether an action on `target` asks first: everything but a single job (a batch, a group, a selection, a
    /// filter) may act on thousands of jobs with one click.
    static func asksFirst(_ target: FerryStore.JobFilter) -> Bool {
        if case .job = target { return false }
        return true
    }

    /// The confirmation step of a bulk action, after `authorize` (so it is as guarded as the action itself).
    /// Answers what to send instead of acting, or nil to act:
    /// - no `confirm` field from a browser: a page naming the count (`Discard 10 failed jobs of …? [Discard 10] [Back]`)
    ///   whose form posts the same fields again with `confirm=10`; works without JavaScript. A script with a bearer
    ///   token acts at once unless it sends `confirm` (it asked for exactly this call);
    /// - `confirm=N`: 409, nothing done, when the action would now act on another number of jobs (the group or the
    ///   filter changed since the page was shown, or the form was forged); 400 when N is not a count.
    ///
    /// The count is read again just before acting, not in the same transaction: a job that changes in between is
    /// acted on by the command's own rules (a finished job is left as it is), as with `ferry discard`.
    func confirmation(
        _ request: Request, fields: FormFields, action: String, target: FerryStore.JobFilter, what: String, back: String
    ) async -> Response? {
        let given = fields[Self.confirmField]
        if given == nil && request.headers[.authorization] != nil { return nil }
        var confirmed: Int?
        if let given {
            guard (1...9).contains(given.count), given.allSatisfy({ $0.isASCII && $0.isNumber }), let count = Int(given) else {
                return problem(request, .badRequest, "confirm= must be the number of jobs the confirmation showed")
            }
            confirmed = count
        }
        let count: Int
        do {
            count = try await store.eligibleCount(target, command: action)
        } catch {
            logger.warning("dashboard action failed", metadata: ["action": "\(action)", "error": "\(error)"])
            return problem(request, .serviceUnavailable, "the database did not answer: \(Self.safe(error))")
        }
        var question = Self.question(action, count: count, target: target, what: what)
        // A retry that changes provider options says which, as typed (checked when it acts, not here).
        if action == "retry", let options = fields["options"]?.trimmingCharacters(in: .whitespacesAndNewlines), !options.isEmpty {
            question = question.dropLast() + " with options “\(options.prefix(200))”?"
        }
        if let confirmed {
            if confirmed == count { return nil }
            logger.notice("dashboard action refused: count changed", metadata: ["action": "\(action)", "confirmed": "\(confirmed)", "now": "\(count)"])
            return problem(
                request, .conflict,
                "nothing was done: you confirmed \(confirmed) job\(confirmed == 1 ? "" : "s"), but it would now act on \(count) "
                    + "(\(question)); look again and confirm the new count")
        }
        return confirmationPage(request, fields: fields, action: action, count: count, question: question, back: back)
    }

    /// "Discard 10 failed jobs of batch “trip”?": the plain-text question (escaped where it is shown).
    static func question(_ action: String, count: Int, target: FerryStore.JobFilter, what: String) -> String {
        let verb = action.prefix(1).uppercased() + action.dropFirst()
        let kind =
            switch action {
            case "discard": "failed"
            case "cancel": "queued or running"
            default: target.isNamed ? "failed, cancelled or discarded" : "failed or cancelled"
            }
        return "\(verb) \(count) \(kind) job\(count == 1 ? "" : "s") \(what)?"
    }

    /// The confirmation page: the question, a form that posts the request's own fields again (each escaped; the
    /// session's CSRF token among them) plus `confirm=COUNT`, and a link back. Nothing to act on: no button.
    func confirmationPage(
        _ request: Request, fields: FormFields, action: String, count: Int, question: String, back: String
    ) -> Response {
        if wantsJSON(request) {
            let json = JSONValue.object([
                "confirm": .object(["action": .string(action), "jobs": .int(Int64(count)), "question": .string(question)])
            ])
            return Self.body(.ok, "application/json", json.jsonText + "\n")
        }
        let view = DashboardView(base: base, readOnly: false, csrf: fields["csrf"] ?? "", loggedIn: true)
        var hidden = ""
        for (name, values) in fields.lists.sorted(by: { $0.key < $1.key }) where name != Self.confirmField && name != "csrf" {
            for value in values {
                hidden += "<input type=\"hidden\" name=\"\(HTML.escape(name))\" value=\"\(HTML.escape(value))\">"
            }
        }
        let verb = action.prefix(1).uppercased() + action.dropFirst()
        var html = "<div id=\"confirm\"><p class=\"question\">\(HTML.escape(question))</p>"
        if count > 0 {
            html += "<form class=\"inline\" method=\"post\" action=\"\(HTML.escape(request.uri.path))\">\(view.csrfField)\(hidden)"
                + "<input type=\"hidden\" name=\"\(Self.confirmField)\" value=\"\(count)\">"
                + "<button class=\"action danger\" id=\"confirm-button\">\(verb) \(count)</button></form> "
        } else {
            html += "<p>Nothing to \(HTML.escape(action)): no job is in a state it applies to.</p>"
        }
        html += "<a class=\"back\" href=\"\(HTML.escape(base + back))\">Back</a></div>"
        var response = Self.body(.ok, "text/html; charset=utf-8", view.page(title: "Confirm: \(verb.lowercased()) \(count)", html))
        response.headers[.cacheControl] = "no-store"
        return response
    }
}
