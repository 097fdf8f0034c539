import FerryCore
@testable import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

/// The dashboard's new reads stay bounded at depth: over a batch of 1,000,000 jobs with 200,000 failures, the
/// failure sample, the status-sorted page and the size-sorted window read about what they return (EXPLAIN ANALYZE).
@Suite("dashboard reads at depth", .tags(.postgres))
struct DashboardPlanTests {
    static func plan(_ db: TestDatabase, _ sql: String, _ binds: [any PostgresBindable] = []) async throws -> PlanNode {
        let text = try await db.query("EXPLAIN (ANALYZE, TIMING off, FORMAT JSON) " + sql, binds).rows[0].decode(String.self, at: 0)
        let root = try #require((try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])?.first?["Plan"] as? [String: Any])
        return PlanNode(json: root)
    }

    /// Rows of ferry.jobs the plan read, and whether it scanned or sorted them.
    /// Rows of ferry.jobs and of its search terms (migration 0037) the plan read: at most `maxRows`, never by a
    /// Seq Scan.
    static func check(_ node: PlanNode, _ what: String, maxRows: Int) {
        var read = 0
        for scan in node.allNodes where scan.relation == "jobs" || scan.relation == "job_search_terms" {
            #expect(scan.type != "Seq Scan", "\(what): Seq Scan of ferry.\(scan.relation ?? "")")
            read += scan.rowsRead
        }
        for sort in node.allNodes where sort.type == "Sort" || sort.type == "Incremental Sort" {
            #expect(!sort.descendants.contains { $0.relation == "jobs" && $0.type == "Seq Scan" }, "\(what): a Sort over a scan of ferry.jobs")
        }
        #expect(read > 0 && read <= maxRows, "\(what) read \(read) rows of ferry.jobs")
    }

    @Test("failure sample, status page and size window over 1,000,000 jobs read bounded rows, by index")
    func boundedAtDepth() async throws {
        let db = try await TestDatabase.make("dashplan")
        let states: [(count: Int, state: String)] = [(780_000, "succeeded"), (200_000, "failed"), (19_990, "queued"), (10, "running")]
        for group in states {
            try await db.query("""
                INSERT INTO ferry.jobs (job_id, version, kind, queue, batch, priority, state, attempt, max_attempts, lease,
                                        worker, account, source, destination, spec, run_at, cancel_requested, bytes_done,
                                        bytes_total, last_error, enqueued_at, updated_at, started_at, finished_at)
                SELECT gen_random_uuid(), 1, 'fetch', 'default', 'huge', 0, $2, 1, 1, 0, CASE WHEN $2 = 'running' THEN 'w' END,
                       NULL, 'https://example.com/' || g, '/srv/in/' || g, '{}', now() - interval '1 day', false, 0, g,
                       CASE WHEN $2 = 'failed' THEN 'http_not_found: GET https://example.com/' || g || ' answered 404' END,
                       now() - interval '2 days', now(), CASE WHEN $2 <> 'queued' THEN now() - interval '1 hour' END,
                       CASE WHEN $2 IN ('succeeded', 'failed') THEN now() - make_interval(secs => g) END
                  FROM generate_series(1, $1) AS g
                """, [group.count, group.state])
        }
        try await db.query("ANALYZE ferry.jobs")

        let sample = try await Self.plan(db, FerryReads.failureSampleQuery(limit: 10_000))
        Self.check(sample, "failure sample", maxRows: 10_001)

        let first = try #require(FerryReads.statusPageQuery("huge", state: nil, search: nil, after: nil, limit: 50))
        Self.check(try await Self.plan(db, first.sql, first.binds), "status page", maxRows: 5 * 51)
        let middle = try await db.query("SELECT job_id FROM ferry.jobs WHERE batch = 'huge' AND state = 'failed' ORDER BY job_id OFFSET 100000 LIMIT 1")
            .rows[0].decode(UUID.self, at: 0)
        let deep = try #require(FerryReads.statusPageQuery("huge", state: nil, search: nil, after: (middle, 2), limit: 50))
        Self.check(try await Self.plan(db, deep.sql, deep.binds), "status page deep in the failures", maxRows: 3 * 51)

        let firstJob = try await db.query("SELECT job_id FROM ferry.jobs WHERE batch = 'huge' ORDER BY job_id LIMIT 1").rows[0].decode(UUID.self, at: 0)
        let window = FerryReads.windowPageQuery("huge", order: .size, state: nil, search: nil, after: nil, firstJob: firstJob, limit: 50)
        Self.check(try await Self.plan(db, window.sql, window.binds), "size window", maxRows: FerryReads.sortWindow + 1)
    }

    @Test("search by id prefix, path text, error code and metadata over 1,000,000 jobs reads by index, bounded")
    func searchAtDepth() async throws {
        let db = try await TestDatabase.make("searchplan")
        // 1,000,000 jobs in 100 batches: distinct paths, 200,000 failed with 10 error codes, every tenth with metadata.
        try await db.query("""
            INSERT INTO ferry.jobs (job_id, version, kind, queue, batch, priority, state, attempt, max_attempts, lease,
                                    source, destination, spec, metadata, run_at, cancel_requested, bytes_done, bytes_total,
                                    last_error, enqueued_at, updated_at, finished_at)
            SELECT gen_random_uuid(), 1, 'fetch', 'default', 'b' || (g % 100), 0,
                   CASE WHEN g % 5 = 0 THEN 'failed' ELSE 'succeeded' END, 1, 1, 0,
                   'https://example.com/photos/' || (g % 1000) || '/IMG_' || g || '.jpg', '/srv/in/' || (g % 100) || '/', '{}',
                   CASE WHEN g % 10 = 0 THEN jsonb_build_object('album', 'album-' || (g % 5000), 'likes', g % 100) END,
                   now() - interval '1 day', false, 0, g,
                   CASE WHEN g % 5 = 0 THEN 'code_' || (g % 10) || ': GET https://example.com/' || g || ' answered 404' END,
                   now() - interval '2 days', now(), now() - interval '1 hour'
              FROM generate_series(1, 1000000) AS g
            """)
        try await db.query("ANALYZE ferry.jobs")
        try await db.query("ANALYZE ferry.job_search_terms")
        let some = try await db.query("SELECT job_id::text FROM ferry.jobs ORDER BY job_id OFFSET 500000 LIMIT 1").rows[0].decode(String.self, at: 0)
        // (what, search, the plans allowed: an index it uses and at most this many rows of ferry.jobs and its
        // search terms read with it).
        let cases: [(String, JobSearch, [(index: String, maxRows: Int)])] = [
            ("id prefix", .idPrefix(String(some.filter { $0 != "-" }.prefix(9))), [("jobs_pkey", 51)]),
            ("path text, one job", .path("IMG_123456.jpg"), [("job_search_terms_path_idx", 200)]),
            // One job in a thousand: its matches by trigram, or (PostgreSQL's choice when its statistics are good)
            // the newest terms first until 50 match, about 50,000 narrow rows: both tens of milliseconds here.
            ("path text, 1,000 jobs", .path("/photos/777/"), [("job_search_terms_path_idx", 4_000), ("job_search_terms_pkey", 100_000)]),
            // Text every job has: the newest 50 by the primary key, filtered, rather than a million by trigram.
            ("path text, every job", .path("/IMG_"), [("jobs_pkey", 200), ("job_search_terms_pkey", 200)]),
            ("error code, 20,000 jobs", .errorCode("code_0"), [("jobs_error_code_idx", 51)]),
            ("metadata, 200 jobs", .metadata(key: "album", value: "album-1230"), [("job_search_terms_metadata_idx", 600)]),
            // Error text reads the newest failures by jobs_finished_idx, at most errorTextScanLimit of them (of
            // 200,000), and the page's jobs.
            ("error text, half the failures", .errorText("CODE_5: get"), [("jobs_finished_idx", JobSearch.errorTextScanLimit + 200)]),
            ("error text, every failure", .errorText("answered 404"), [("jobs_finished_idx", JobSearch.errorTextScanLimit + 200)]),
            // Plain text: both sides, each bounded as alone.
            ("text, one path", .text("IMG_123455.jpg"), [("job_search_terms_path_idx", JobSearch.errorTextScanLimit + 400)]),
            ("text, every path", .text("/IMG_"), [("job_search_terms_pkey", JobSearch.errorTextScanLimit + 400)]),
            ("text, errors only", .text("answered 404"), [("jobs_finished_idx", JobSearch.errorTextScanLimit + 400)]),
        ]
        for (what, search, allowed) in cases {
            let query = FerryReads.searchQuery(search, before: nil, limit: FerryReads.searchPageSize)
            let plan = try await Self.plan(db, query.sql, query.binds)
            // The first allowed index the plan uses decides the bound (the primary key of ferry.jobs is probed by
            // most plans, so it is listed last where another index is the point).
            let used = allowed.first { option in plan.allNodes.contains { $0.index == option.index } }
            #expect(used != nil, "\(what): by none of \(allowed.map(\.index))")
            Self.check(plan, what, maxRows: used?.maxRows ?? allowed[0].maxRows)
            // The plan's row counts are the bound; the time is printed only (timed assertions fail on a busy machine).
            let started = ContinuousClock.now
            let rows = try await db.query(query.sql, query.binds).rows.count
            let took = ContinuousClock.now - started
            #expect(rows > 0, "\(what): no rows")
            print("search plan \(what): \(rows) rows in \(took) by \(used?.index ?? "?")")
        }
        // Deep in the error code's 20,000 jobs, a page still reads about its own rows.
        let deep = try await db.query(
            "SELECT job_id FROM ferry.jobs WHERE last_error LIKE 'code_0:%' ORDER BY job_id DESC OFFSET 15000 LIMIT 1"
        ).rows[0].decode(UUID.self, at: 0)
        let page = FerryReads.searchQuery(.errorCode("code_0"), before: deep, limit: FerryReads.searchPageSize)
        Self.check(try await Self.plan(db, page.sql, page.binds), "error code, deep page", maxRows: 51)
    }
}

