import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

/// The claim at depth: its plans over a backlog of 200,000+ jobs, read from the server itself.
///
/// `ferry.claim_jobs` is PL/pgSQL, so `EXPLAIN` of the call shows only a function scan. `auto_explain` (with
/// `log_nested_statements`) logs `EXPLAIN (ANALYZE, FORMAT JSON)` of every statement the real claim runs,
/// triggers included, and `client_min_messages = log` sends those plans to this connection.
@Suite("claims at depth", .tags(.postgres))
struct ClaimPlanTests {
    static let queuedJobs = 210_000
    static let limit = 128

    /// `analyzed: false` is the worst case for cached plans: the session planned the claim while the queue was
    /// empty, and the statistics never saw it grow (autovacuum off, no ANALYZE).
    @Test("a claim over 210,000 queued jobs: no Seq Scan or Sort over jobs, reads about what it returns, keeps every guarantee",
          arguments: [true, false])
    func claimPlanAtDepth(analyzed: Bool) async throws {
        let db = try await TestDatabase.make("claimplan")
        let client = db.client(poolSize: 1)
        defer { client.close() }
        if !analyzed {
            try await db.query("ALTER TABLE ferry.jobs SET (autovacuum_enabled = false)")
            _ = try await client.withConnection { connection in
                try connection.query("SELECT count(*) FROM ferry.claim_jobs('warm-up', ARRAY['default', 'video', 'photos'], 128)")
            }
        }
        try await Self.loadBacklog(db, analyze: analyzed)

        let (claimed, plans) = try await client.withConnection { connection in
            try connection.collectingPlans {
                try connection.query(
                    "SELECT job_id::text, queue, account, priority, run_at <= now() FROM ferry.claim_jobs($1, $2::text[], $3)",
                    ["plan-test", PostgresArray(["default", "video", "photos"]), Self.limit]
                ).rows.map { row in
                    (id: try row.decode(String.self, at: 0), queue: try row.decode(String.self, at: 1),
                     account: try row.decode(String?.self, at: 2), priority: try row.decode(Int.self, at: 3),
                     due: try row.decode(Bool.self, at: 4))
                }
            }
        }

        // Every guarantee of the claim still holds.
        #expect(claimed.count == Self.limit)
        #expect(claimed.allSatisfy { $0.due }, "only due jobs")
        #expect(!claimed.contains { $0.account == "held" }, "jobs of a held account are skipped")
        #expect(!claimed.contains { $0.account == "full" }, "an account at its cap gets nothing more")
        #expect(claimed.filter { $0.account == "open" }.count == 4, "an account gets exactly its free room")
        #expect(Set(claimed.map(\.queue)) == ["default", "video", "photos"])
        // After the 4 of `open` (priority 10), the 5,000 due priority-5 jobs without an account outrank the rest.
        #expect(claimed.filter { $0.account == nil }.allSatisfy { $0.priority == 5 })

        let statements = plans.compactMap(PlanNode.parseAutoExplain)
        #expect(statements.count >= 3, "auto_explain reported the claim's statements: \(plans.count) messages")
        var rowsFromJobs = 0
        for statement in statements {
            for node in statement.allNodes where node.relation == "jobs" {
                #expect(node.type != "Seq Scan", "Seq Scan of ferry.jobs in: \(statement.queryText.prefix(120))")
                rowsFromJobs += node.rowsRead
                if node.rowsReadPerLoop > Self.limit + 1 {
                    Issue.record("\(node.type) read \(node.rowsReadPerLoop) rows of ferry.jobs per loop in: \(statement.queryText.prefix(160))")
                }
            }
            for sort in statement.allNodes where sort.type == "Sort" || sort.type == "Incremental Sort" {
                #expect(!sort.descendants.contains { $0.relation == "jobs" },
                        "a Sort over ferry.jobs in: \(statement.queryText.prefix(120))")
            }
        }
        // Candidates per (queue, account) group, probes, the claimed rows' updates: a few times the claim size,
        // never the backlog.
        #expect(rowsFromJobs > 0)
        #expect(rowsFromJobs < 12 * Self.limit, "read \(rowsFromJobs) rows of ferry.jobs to claim \(Self.limit)")
    }

    @Test("a second worker claims next to the first, each account's cap holds across both")
    func claimsAtDepthShareTheQueue() async throws {
        let db = try await TestDatabase.make("claimshare")
        try await Self.loadBacklog(db)
        let store = db.store(poolSize: 2)
        defer { store.client.close() }
        async let first = store.claim(worker: "a", queues: ["default", "video", "photos"], limit: 64)
        async let second = store.claim(worker: "b", queues: ["photos", "video", "default"], limit: 64)
        let (a, b) = try await (first, second)
        #expect(Set(a.map(\.jobID)).isDisjoint(with: b.map(\.jobID)))
        // Both may pick 4 of `open` before either commits; the loser of the account lock drops its 4.
        #expect((124...128).contains(a.count + b.count))
        #expect((a + b).filter { $0.account == "open" }.count == 4)
        for jobs in [a, b] {
            #expect(jobs.map(\.priority) == jobs.map(\.priority).sorted(by: >), "claimed jobs come back in claim order")
        }
        let running = try await db.query(
            "SELECT count(*) FROM ferry.jobs WHERE state = 'running' AND account = 'open'").rows[0].decode(Int.self, at: 0)
        #expect(running == 4)
    }

    /// 210,000 queued jobs over three queues, plus history and scheduled work, written straight into the
    /// projection (the fixture needs rows, not events):
    /// - 150,000 due jobs without an account, priority 0, and 5,000 at priority 5;
    /// - 20,000 of account `full` at priority 20 (the account already runs its 4);
    /// - 15,000 of account `held` at priority 30 (needs re-authorization);
    /// - 10,000 of account `open` at priority 10 (cap 4, nothing running);
    /// - 10,000 at priority 50 scheduled for tomorrow;
    /// - 100,000 succeeded jobs (history the claim must not read).
    static func loadBacklog(_ db: TestDatabase, analyze: Bool = true) async throws {
        try await db.query("""
            INSERT INTO ferry.accounts (name, provider, max_concurrent, status)
            VALUES ('full', 'dropbox', 4, 'active'), ('held', 'dropbox', 4, 'needs_reauth'), ('open', 'dropbox', 4, 'active')
            """)
        let groups: [(count: Int, state: String, account: String?, priority: Int, runAt: String)] = [
            (150_000, "queued", nil, 0, "now() - interval '1 hour'"),
            (5_000, "queued", nil, 5, "now() - interval '1 minute'"),
            (20_000, "queued", "full", 20, "now() - interval '1 hour'"),
            (4, "running", "full", 0, "now() - interval '1 hour'"),
            (15_000, "queued", "held", 30, "now() - interval '1 hour'"),
            (10_000, "queued", "open", 10, "now() - interval '2 hours'"),
            (10_000, "queued", nil, 50, "now() + interval '1 day'"),
            (100_000, "succeeded", nil, 0, "now() - interval '1 day'"),
        ]
        for group in groups {
            try await db.query("""
                INSERT INTO ferry.jobs (job_id, version, kind, queue, batch, priority, state, attempt, max_attempts, lease,
                                        worker, account, source, destination, spec, run_at, cancel_requested, bytes_done,
                                        enqueued_at, updated_at)
                SELECT gen_random_uuid(), 1, 'fetch', (ARRAY['default', 'video', 'photos'])[1 + g % 3], 'depth', $2::smallint,
                       $3, 0, 5, 0, CASE WHEN $3 = 'running' THEN 'someone' END, $4, 'https://example.com/' || g, '/srv/in/',
                       '{}', \(group.runAt), false, 0, now() - interval '2 days', now()
                  FROM generate_series(1, $1) AS g
                """, [group.count, group.priority, group.state, group.account])
        }
        if analyze { try await db.query("ANALYZE ferry.jobs") }
        let queued = try await db.query("SELECT count(*) FROM ferry.jobs WHERE state = 'queued'").rows[0].decode(Int.self, at: 0)
        #expect(queued == Self.queuedJobs)
    }
}

/// One node of an `EXPLAIN (FORMAT JSON)` plan.
struct PlanNode {
    var type: String
    var relation: String?
    /// The index an index or bitmap index scan reads.
    var index: String?
    var rowsRead: Int
    var rowsReadPerLoop: Int
    var children: [PlanNode]
    var queryText: String = ""

    var allNodes: [PlanNode] { [self] + children.flatMap(\.allNodes) }
    var descendants: [PlanNode] { children.flatMap(\.allNodes) }

    init(json: [String: Any]) {
        type = json["Node Type"] as? String ?? "?"
        relation = json["Relation Name"] as? String
        index = json["Index Name"] as? String
        let loops = (json["Actual Loops"] as? Int) ?? 1
        let rows = (json["Actual Rows"] as? Int) ?? 0
        let removed = (json["Rows Removed by Filter"] as? Int ?? 0) + (json["Rows Removed by Index Recheck"] as? Int ?? 0)
        // Rows a scan looked at: what it returned plus what its filter (or a lossy index's recheck) threw away, over
        // every loop.
        rowsReadPerLoop = rows + removed
        rowsRead = rowsReadPerLoop * loops
        children = ((json["Plans"] as? [[String: Any]]) ?? []).map(PlanNode.init(json:))
    }

    /// Parses an `auto_explain` message ("duration: … ms  plan:\n{json}").
    static func parseAutoExplain(_ message: String) -> PlanNode? {
        guard let brace = message.firstIndex(of: "{"),
              let object = try? JSONSerialization.jsonObject(with: Data(message[brace...].utf8)) as? [String: Any],
              let plan = object["Plan"] as? [String: Any]
        else { return nil }
        var node = PlanNode(json: plan)
        node.queryText = object["Query Text"] as? String ?? ""
        return node
    }
}
