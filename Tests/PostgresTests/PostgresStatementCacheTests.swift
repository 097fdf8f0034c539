import Foundation
@testable import Postgres
import Testing

/// The per-connection statement cache's decisions, without a server: when a text is prepared, that the names are
/// unique and carry the connection's token, that capacity evicts the least recently used statement for
/// deallocation, and that a lost statement turns the cache off.
@Suite("statement cache", .tags(.fast))
struct PostgresStatementCacheTests {
    @Test("a text is sent unprepared once, prepared on its second use, then executed by name")
    func preparesOnSecondUse() {
        let cache = PostgresStatementCache(capacity: 4, token: "t")
        #expect(cache.plan(for: "SELECT 1") == .unprepared)
        guard case .prepare(let name) = cache.plan(for: "SELECT 1") else {
            Issue.record("the second use should prepare")
            return
        }
        #expect(name.hasPrefix("ferry_t_"))
        cache.prepared("SELECT 1", as: name)
        #expect(cache.plan(for: "SELECT 1") == .execute(name))
        #expect(cache.plan(for: "SELECT 1") == .execute(name))
        #expect(cache.preparedCount == 1)
    }

    @Test("names never repeat within a connection and differ between connections")
    func uniqueNames() {
        let a = PostgresStatementCache(capacity: 8, threshold: 1)
        let b = PostgresStatementCache(capacity: 8, threshold: 1)
        var names = Set<String>()
        for cache in [a, b] {
            for index in 0..<4 {
                guard case .prepare(let name) = cache.plan(for: "SELECT \(index)") else {
                    Issue.record("threshold 1 prepares on first use")
                    return
                }
                names.insert(name)
            }
        }
        #expect(names.count == 8)
    }

    @Test("beyond capacity the least recently used statement is evicted and waits for DEALLOCATE")
    func evictsLeastRecentlyUsed() {
        let cache = PostgresStatementCache(capacity: 2, threshold: 1, token: "t")
        var names = [String: String]()
        for sql in ["A", "B"] {
            guard case .prepare(let name) = cache.plan(for: sql) else {
                Issue.record("expected prepare")
                return
            }
            cache.prepared(sql, as: name)
            names[sql] = name
        }
        _ = cache.plan(for: "A")  // B is now the least recently used
        guard case .prepare(let c) = cache.plan(for: "C") else {
            Issue.record("expected prepare")
            return
        }
        cache.prepared("C", as: c)
        #expect(cache.preparedCount == 2)
        #expect(cache.takePendingDeallocation() == [names["B"]!])
        #expect(cache.takePendingDeallocation().isEmpty)
        #expect(cache.plan(for: "A") == .execute(names["A"]!))
        if case .execute = cache.plan(for: "B") { Issue.record("an evicted statement must be prepared again") }
    }

    @Test("a statement whose plan can no longer run is forgotten, deallocated and prepared again under a new name")
    func forgetsInvalidated() {
        let cache = PostgresStatementCache(capacity: 4, token: "t")
        _ = cache.plan(for: "Q")
        guard case .prepare(let first) = cache.plan(for: "Q") else {
            Issue.record("expected prepare")
            return
        }
        cache.prepared("Q", as: first)
        cache.forget("Q")
        #expect(cache.takePendingDeallocation() == [first])
        #expect(cache.plan(for: "Q") == .unprepared)
        guard case .prepare(let second) = cache.plan(for: "Q") else {
            Issue.record("expected prepare")
            return
        }
        #expect(second != first)
    }

    @Test("off (capacity 0) or disabled after a lost statement: every text unprepared, nothing kept")
    func offAndDisabled() {
        let off = PostgresStatementCache(capacity: 0, threshold: 1)
        #expect(!off.isEnabled)
        #expect(off.plan(for: "SELECT 1") == .unprepared)
        let cache = PostgresStatementCache(capacity: 4, threshold: 1)
        guard case .prepare(let name) = cache.plan(for: "SELECT 1") else {
            Issue.record("expected prepare")
            return
        }
        cache.prepared("SELECT 1", as: name)
        cache.disable()
        #expect(cache.plan(for: "SELECT 1") == .unprepared)
        #expect(cache.preparedCount == 0)
    }

    @Test("hostile callers: many distinct or huge texts keep the table bounded and are never prepared")
    func boundedUnderDistinctTexts() {
        let cache = PostgresStatementCache(capacity: 4, token: "t")
        for index in 0..<10_000 { _ = cache.plan(for: "SELECT \(index)") }
        #expect(cache.preparedCount == 0)
        let huge = "SELECT '" + String(repeating: "x", count: PostgresStatementCache.maximumTextLength) + "'"
        #expect(cache.plan(for: huge) == .unprepared)
        #expect(cache.plan(for: huge) == .unprepared)
    }

    @Test("off by default (safe behind any pooler); FERRY_PREPARED_STATEMENTS overrides the caller's fallback both ways")
    func environmentDefault() {
        #expect(!PostgresConfiguration.preparedStatementsByDefault(environment: [:]))
        #expect(PostgresConfiguration.preparedStatementsByDefault(environment: [:], fallback: true))
        for off in ["off", "0", "false", "NO", " Off "] {
            #expect(!PostgresConfiguration.preparedStatementsByDefault(environment: ["FERRY_PREPARED_STATEMENTS": off], fallback: true))
        }
        for on in ["on", "1", "true", " YES "] {
            #expect(PostgresConfiguration.preparedStatementsByDefault(environment: ["FERRY_PREPARED_STATEMENTS": on]))
        }
        #expect(!PostgresConfiguration.preparedStatementsByDefault(environment: ["FERRY_PREPARED_STATEMENTS": "maybe"]))
        #expect(PostgresConfiguration(connectionString: "postgresql://x").preparedStatements == PostgresConfiguration.preparedStatementsByDefault())
    }
}
