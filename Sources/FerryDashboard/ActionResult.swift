import FerryStore

/// What an action did, counted by outcome: the "10 jobs requeued" a browser sees on the page it is sent back to
/// and scripts read in the JSON answer.
///
/// Browsers carry it in the address they are redirected to (`done=requeued:10,unchanged:2`), so it needs no
/// JavaScript and no server-side state. The page builds its text only from these fixed names and numbers: a forged
/// address can at most show other numbers, never text of its own.
struct ActionResult: Equatable {
    /// The outcomes in the order the message names them.
    static let order: [CommandOutcome.Action] = [.requeued, .discarded, .cancelled, .cancelRequested, .unchanged]

    private(set) var counts: [CommandOutcome.Action: Int] = [:]

    init(_ outcomes: [CommandOutcome]) {
        for outcome in outcomes { counts[outcome.action, default: 0] += 1 }
    }

    /// Jobs per outcome, as counted.
    init(counts: [CommandOutcome.Action: Int]) {
        self.counts = counts.filter { $0.value > 0 }
    }

    /// Parses `done=`; nil unless every part is a known outcome with a count of at most nine digits.
    init?(query: String) {
        guard query.count <= 200 else { return nil }
        for part in query.split(separator: ",", omittingEmptySubsequences: false) {
            let pair = part.split(separator: ":", omittingEmptySubsequences: false)
            guard pair.count == 2, let action = CommandOutcome.Action(rawValue: String(pair[0])),
                pair[1].count <= 9, pair[1].allSatisfy(\.isASCII), pair[1].allSatisfy(\.isNumber), let count = Int(pair[1])
            else { return nil }
            counts[action] = count
        }
    }

    /// The value of `done=`.
    var query: String {
        Self.order.compactMap { action in counts[action].map { "\(action.rawValue):\($0)" } }.joined(separator: ",")
    }

    /// "10 jobs requeued", "3 jobs cancelled, 1 running job asked to stop", or "nothing changed".
    var text: String {
        let parts = Self.order.compactMap { action -> String? in
            guard let count = counts[action], count > 0 else { return nil }
            let jobs = count == 1 ? "job" : "jobs"
            switch action {
            case .requeued: return "\(count) \(jobs) requeued"
            case .discarded: return "\(count) \(jobs) discarded"
            case .cancelled: return "\(count) \(jobs) cancelled"
            case .cancelRequested: return "\(count) running \(jobs) asked to stop"
            case .unchanged: return "\(count) \(jobs) left as \(count == 1 ? "it was" : "they were")"
            }
        }
        if parts.isEmpty || counts.keys.allSatisfy({ $0 == .unchanged }) {
            return "Nothing changed" + (parts.isEmpty ? "" : ": " + parts.joined(separator: ", "))
        }
        return parts.joined(separator: ", ")
    }
}
