import AsyncHTTPClient
import FerryStore
import FerryTestSupport
import Foundation
import NIOCore
import Testing

/// A live page always ends up showing the last change: a page that used a shared read from before the last change
/// the dashboard heard of tells the browser when to look again (`data-refresh-after`), and the page it then gets
/// shows the change, even when nothing changes after it.
@Suite("ferry dashboard live refresh", .tags(.postgres))
struct DashboardLiveRefreshTests {
    /// The batch page's succeeded count (the summary row's sixth cell).
    static func succeeded(_ html: String) -> Int? {
        guard let table = html.range(of: "<div id=\"live\">") else { return nil }
        let rows = html[table.upperBound...].components(separatedBy: "<tr>")
        guard rows.count > 2 else { return nil }
        let cells = rows[2].components(separatedBy: "<td")
        guard cells.count > 6 else { return nil }
        let cell = cells[6]
        let text = cell.drop { $0 != ">" }.dropFirst().prefix { $0 != "<" }
        return Int(text.trimmingCharacters(in: .whitespaces))
    }

    static func refreshAfter(_ html: String) -> Int? {
        guard let range = html.range(of: #"data-refresh-after="[0-9]+""#, options: .regularExpression) else { return nil }
        return Int(html[range].dropFirst("data-refresh-after=\"".count).dropLast())
    }

    @Test("a page served from a read older than the last change says when to look again, and then shows the change")
    func staleSharedReadIsRefreshed() async throws {
        let db = try await TestDatabase.make("dashstale")
        let store = db.store()
        defer { store.client.close() }
        _ = try await DashboardTests.seed(store, batch: "stale", count: 2)
        // Shared reads kept 60 s (the most): the second page load below finds the first one's read still kept,
        // unless the machine is so loaded that a minute passes between them (then the premise is not checked).
        try await DashboardProbe.inProcess(db, readOnly: true, sharedReadAge: .seconds(60)) { dashboard in
            let firstAt = ContinuousClock.now
            let first = try await dashboard.get("/batches/stale")
            // A read is kept for 60 s, or 20 times what it took when longer (a loaded machine): no read of this
            // page took longer than the whole first load.
            let keptAtMost = max(Duration.seconds(60), (ContinuousClock.now - firstAt) * 20)
            let keptAtMostMilliseconds = keptAtMost.components.seconds * 1000 + keptAtMost.components.attoseconds / 1_000_000_000_000_000
            #expect(first.status == 200)
            #expect(Self.succeeded(first.body) == 0, "\(first.body)")
            #expect(Self.refreshAfter(first.body) == nil, "nothing changed since the read: no second look")

            // A viewer's event stream (the dashboard reads the event head only while someone watches), then a
            // success, which the dashboard hears through the event head.
            let http = dashboard.http
            let root = dashboard.root
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    // A guard against a hang, not a speed check.
                    try await Task.sleep(for: .seconds(300))
                    throw TestSupportError("no change event within 300 s")
                }
                group.addTask {
                    let response = try await http.execute(HTTPClientRequest(url: root + "/events"), timeout: .seconds(300))
                    var received = ""
                    var iterator = response.body.makeAsyncIterator()
                    while !received.contains("\n\n"), let chunk = try await iterator.next() { received += String(buffer: chunk) }
                    let claimed = try await store.claim(worker: "stale", queues: ["default"], limit: 1)
                    _ = try await store.record(claimed.map { .succeeded($0, bytes: 1000) })
                    while !received.contains(#""channel":"events""#), let chunk = try await iterator.next() {
                        received += String(buffer: chunk)
                    }
                }
                try await group.next()
                group.cancelAll()
            }

            // Served from the kept read: still 0, and the page says when the read is no longer kept.
            let second = try await dashboard.get("/batches/stale")
            guard ContinuousClock.now - firstAt < .seconds(55) else {
                // A hang guard's kind of case, not a speed check: the kept read may have expired; nothing to compare.
                #expect(Self.succeeded(second.body) == 1 || Self.refreshAfter(second.body) != nil)
                return
            }
            let after = try #require(Self.refreshAfter(second.body), "a page older than the last change must say when to look again")
            #expect(Self.succeeded(second.body) == 0, "the kept read (this test's premise)")
            #expect(after >= 100 && after <= keptAtMostMilliseconds + 100, "\(after) ms, kept at most \(keptAtMost)")
            // The browser's second look, when the page said.
            try await Task.sleep(for: .milliseconds(after))
            let third = try await dashboard.get("/batches/stale")
            #expect(Self.succeeded(third.body) == 1, "\(third.body)")
            #expect(Self.refreshAfter(third.body) == nil, "read after the change: no further look")
        }
    }
}
