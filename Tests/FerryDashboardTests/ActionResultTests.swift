import FerryTestSupport
@testable import FerryDashboard
import FerryStore
import Foundation
import Testing

/// The result message after an action, and its round trip through the address a browser is sent back to.
@Suite("dashboard action results", .tags(.fast))
struct ActionResultTests {
    static func outcomes(_ actions: [CommandOutcome.Action]) -> ActionResult {
        ActionResult(counts: Dictionary(actions.map { ($0, 1) }, uniquingKeysWith: +))
    }

    @Test("counts read as a sentence and survive the address")
    func sentence() throws {
        let result = Self.outcomes(Array(repeating: .requeued, count: 10) + [.unchanged])
        #expect(result.text == "10 jobs requeued, 1 job left as it was")
        #expect(result.query == "requeued:10,unchanged:1")
        #expect(ActionResult(query: result.query) == result)
        #expect(Self.outcomes([.cancelled, .cancelRequested, .cancelRequested]).text == "1 job cancelled, 2 running jobs asked to stop")
        #expect(Self.outcomes([]).text == "Nothing changed")
        #expect(Self.outcomes([.unchanged, .unchanged]).text == "Nothing changed: 2 jobs left as they were")
    }

    @Test("a forged done= is ignored: unknown outcomes, signs, long or non-ASCII numbers, markup", arguments: [
        "", "owned:1", "discarded:-1", "discarded:+1", "discarded:1234567890", "discarded:１", "discarded:1<b>", "discarded",
        "discarded:1,", "<script>alert(1)</script>", String(repeating: "discarded:1,", count: 30) + "discarded:1",
    ])
    func forged(_ query: String) {
        #expect(ActionResult(query: query) == nil)
    }
}
