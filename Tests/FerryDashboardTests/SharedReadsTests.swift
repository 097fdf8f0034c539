import FerryTestSupport
import Synchronization
import Testing

@testable import FerryDashboard

/// The dashboard's shared aggregate reads: one read per key at a time and per `maxAge`, whatever the viewers.
@Suite("Shared reads", .tags(.fast))
struct SharedReadsTests {
    final class Counter: Sendable {
        let value = Mutex(0)
        func next() -> Int { value.withLock { $0 += 1; return $0 } }
        var count: Int { value.withLock { $0 } }
    }

    @Test("fifty concurrent page loads share one read; a fresh value is shared; clear forgets; a stale one is read again")
    func sharesOneRead() async throws {
        // Long-lived values (so a test task held up on a busy machine sees the same), then a short-lived cache.
        let reads = SharedReads(maxAge: .seconds(600), costFactor: 0)
        let counter = Counter()
        let values = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    try await reads.value("batches") {
                        // A slow read, so the fifty loads arrive while it runs.
                        try await Task.sleep(for: .milliseconds(100))
                        return counter.next()
                    }
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(counter.count == 1 && Set(values) == [1])
        #expect(try await reads.value("batches") { counter.next() } == 1, "fresh: shared")
        #expect(try await reads.value("workers") { counter.next() } == 2, "another key is its own read")
        reads.clear()
        #expect(try await reads.value("batches") { counter.next() } == 3, "cleared by an action: read again")

        let brief = SharedReads(maxAge: .milliseconds(1), costFactor: 0)
        #expect(try await brief.value("batches") { 10 } == 10)
        // Time is the subject: SharedReads ages values on the monotonic clock (nothing to inject).
        try await Task.sleep(for: .milliseconds(20))
        #expect(try await brief.value("batches") { 11 } == 11, "older than maxAge: read again")
    }

    @Test("a failed read is not kept: the next load tries again")
    func failureNotKept() async throws {
        struct Down: Error {}
        let reads = SharedReads(maxAge: .seconds(60))
        await #expect(throws: Down.self) {
            _ = try await reads.value("queue_stats") { () async throws -> Int in throw Down() }
        }
        #expect(try await reads.value("queue_stats") { 7 } == 7)
    }

    @Test("a slow read is kept for costFactor times what it took")
    func slowReadKeptLonger() async throws {
        let reads = SharedReads(maxAge: .milliseconds(1), costFactor: 10_000)
        let counter = Counter()
        _ = try await reads.value("batch:big") { () async throws -> Int in
            // A read that takes 50 ms: its cost sets how long it is kept.
            try await Task.sleep(for: .milliseconds(50))
            return counter.next()
        }
        // Time is the subject: past maxAge, within the cost-based lifetime.
        try await Task.sleep(for: .milliseconds(100))
        #expect(try await reads.value("batch:big") { counter.next() } == 1, "50 ms × 10,000: still fresh after 100 ms")
    }

    @Test("a page load learns the oldest kept value it used; it says when to look again only if that value predates the last change")
    func usageRecordsTheOldestRead() async throws {
        let reads = SharedReads(maxAge: .seconds(600), costFactor: 0)
        _ = try await reads.value("old") { 1 }
        let change = ContinuousClock.now
        // Time is the subject: the second value is read strictly after the change.
        try await Task.sleep(for: .milliseconds(5))
        let usage = SharedReadUsage()
        try await SharedReadUsage.$current.withValue(usage) {
            _ = try await reads.value("old") { 2 }
            _ = try await reads.value("new") { 3 }
        }
        let oldest = try #require(usage.oldest)
        #expect(oldest.started < change)
        let after = try #require(usage.refreshAfter(lastChange: change))
        #expect(after > .seconds(590) && after <= .seconds(601), "kept 600 s from its read: \(after)")

        let fresh = SharedReadUsage()
        try await SharedReadUsage.$current.withValue(fresh) { _ = try await reads.value("new") { 4 } }
        #expect(fresh.refreshAfter(lastChange: change) == nil, "read after the change")
        #expect(fresh.refreshAfter(lastChange: nil) == nil, "no change heard")
        #expect(SharedReadUsage().refreshAfter(lastChange: change) == nil, "no shared value used")
    }
}
