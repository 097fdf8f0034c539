import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

/// `ferry.enqueue` and `ferry.enqueue_many`: enqueue from SQL in the caller's transaction (migration 0020).
@Suite("Enqueue from SQL", .tags(.postgres))
struct SQLEnqueueTests {
    /// Runs `body` on one connection as `role` (SET ROLE narrows the test's login to the group role).
    static func asRole<T: Sendable>(
        _ db: TestDatabase, _ role: String, _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        try await db.client(poolSize: 1).withConnection { connection in
            try connection.execute("SET ROLE \(role)")
            defer { try? connection.execute("RESET ROLE") }
            return try body(connection)
        }
    }

    /// The refusal of `sql` as a producer: its SQLSTATE, the COLUMN it names and its message.
    static func refusal(_ db: TestDatabase, _ sql: String, _ binds: [any PostgresBindable] = []) async throws -> (state: String, column: String?, message: String) {
        do {
            try await asRole(db, "ferry_producer") { connection in _ = try connection.query(sql, binds) }
        } catch let error as PostgresError {
            return (error.sqlState?.code ?? "", error.column, error.serverMessage ?? "")
        }
        Issue.record("\(sql) was accepted")
        return ("", nil, "")
    }

    @Test("an application's INSERT and its job commit together, or roll back together leaving no job and no event")
    func sameTransaction() async throws {
        let db = try await TestDatabase.make("sql_enqueue_tx")
        try await db.query("CREATE TABLE public.orders (id int PRIMARY KEY)")
        try await db.query("GRANT INSERT, SELECT ON public.orders TO ferry_producer")

        // Rolled back: neither the order nor the job remains.
        try await Self.asRole(db, "ferry_producer") { connection in
            try connection.execute("BEGIN")
            _ = try connection.query("INSERT INTO public.orders VALUES (1)")
            let id = try connection.query(
                "SELECT ferry.enqueue('fetch', 'https://example.com/a.jpg', '/srv/photos/', '{\"queue\": \"photos\"}')"
            ).rows[0].decode(UUID.self, at: 0)
            // Inside the transaction the job is there, queued, as the status view shows it.
            let status = try connection.query("SELECT status, queue FROM ferry.job_status WHERE job_id = $1", [id]).rows
            let seen = try status.first?.decode(String.self, at: 0)
            #expect(status.count == 1 && seen == "queued")
            try connection.execute("ROLLBACK")
        }
        #expect(try await count(db, "SELECT count(*) FROM public.orders") == 0)
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs") == 0)
        #expect(try await count(db, "SELECT count(*) FROM ferry.events") == 0)

        // Committed: both, with every option as given.
        let runAt = "2026-01-01T00:00:00Z"
        let id = try await Self.asRole(db, "ferry_producer") { connection in
            try connection.execute("BEGIN")
            _ = try connection.query("INSERT INTO public.orders VALUES (2)")
            let id = try connection.query(
                """
                SELECT ferry.enqueue('fetch', 'https://example.com/b.jpg', '/srv/photos/b.jpg',
                                     '{"queue": "photos", "priority": 7, "max_attempts": 3, "batch": "order-2",
                                       "run_at": "\(runAt)", "metadata": {"order": 2, "note": null},
                                       "options": {"sha256": "\(String(repeating: "ab", count: 32))"}}')
                """
            ).rows[0].decode(UUID.self, at: 0)
            try connection.execute("COMMIT")
            return id
        }
        #expect(try await count(db, "SELECT count(*) FROM public.orders") == 1)
        let row = try await db.query(
            """
            SELECT status, queue, priority, max_attempts, batch, run_at = $2::timestamptz, metadata->>'order', source,
                   destination FROM ferry.job_status WHERE job_id = $1
            """, [id, runAt]).rows[0]
        #expect(try row.decode(String.self, at: 0) == "queued")
        #expect(try row.decode(String.self, at: 1) == "photos")
        #expect(try row.decode(Int.self, at: 2) == 7)
        #expect(try row.decode(Int.self, at: 3) == 3)
        #expect(try row.decode(String.self, at: 4) == "order-2")
        #expect(try row.decode(Bool.self, at: 5))
        #expect(try row.decode(String.self, at: 6) == "2")
        let keptNull = try await db.query("SELECT metadata ? 'note' FROM ferry.jobs WHERE job_id = $1", [id]).rows[0]
        #expect(try keptNull.decode(Bool.self, at: 0), "metadata is stored as given, nested nulls included")
        #expect(try row.decode(String.self, at: 8) == "/srv/photos/b.jpg")
        // A traceparent is kept in the enqueued event, where workers read it.
        let traced = try await db.query(
            "SELECT ferry.enqueue('fetch', 'https://example.com/t.jpg', '/srv/t/', '{\"traceparent\": \"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\"}')"
        ).rows[0].decode(UUID.self, at: 0)
        let kept = try await db.query("SELECT data->>'traceparent' FROM ferry.events WHERE job_id = $1 AND version = 1", [traced]).rows[0]
        #expect(try kept.decode(String.self, at: 0) == "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        // A time-ordered id (UUIDv7), like the CLI's.
        #expect(id.uuidString.lowercased().dropFirst(14).first == "7")
        // The provider options wait for the first worker, which settles the job.
        let spec = try await db.query("SELECT spec->'unresolved'->'options' ? 'sha256' FROM ferry.jobs WHERE job_id = $1", [id]).rows[0]
        #expect(try spec.decode(Bool.self, at: 0))
    }

    @Test("a bad argument raises SQLSTATE 22023 naming the field (message and COLUMN), and nothing is written")
    func badArguments() async throws {
        let db = try await TestDatabase.make("sql_enqueue_bad")
        try await db.query("INSERT INTO ferry.accounts (name, provider) VALUES ('box', 'dropbox'), ('bucket', 's3')")
        let cases: [(kind: String, source: String, destination: String, options: String, field: String, says: String)] = [
            ("move", "https://e/a", "/a/", "{}", "kind", "must be 'upload', 'fetch' or 'copy'"),
            ("copy", "/etc/shadow", "s3:bucket:b/x", "{}", "source", "a copy reads another provider"),
            ("copy", "dropbox:box:/a.jpg", "file:///etc/cron.d/", "{}", "destination", "not a local folder"),
            ("copy", "dropbox:bucket:/a.jpg", "s3:bucket:b/x", "{}", "source", "is not a dropbox account"),
            ("fetch", "https://e/a", "relative/", "{}", "destination", "absolute path"),
            ("upload", "a.jpg", "dropbox:box:/x/", "{}", "source", "absolute path"),
            ("upload", "/srv/a.jpg", "", "{}", "destination", "missing"),
            ("fetch", "https://e/a", "/a/", #"{"queue": "Photos!"}"#, "queue", "queue names"),
            ("fetch", "https://e/a", "/a/", #"{"priority": 101}"#, "priority", "from -100 to 100"),
            ("fetch", "https://e/a", "/a/", #"{"priority": "high"}"#, "priority", "whole number"),
            ("fetch", "https://e/a", "/a/", #"{"max_attempts": 0}"#, "max_attempts", "from 1 to 1000"),
            ("fetch", "https://e/a", "/a/", #"{"batch": ""}"#, "batch", "batch names"),
            ("fetch", "https://e/a", "/a/", #"{"key": ""}"#, "key", "idempotency keys"),
            ("fetch", "https://e/a", "/a/", #"{"run_at": "tomorrowish"}"#, "run_at", "not a time"),
            ("fetch", "https://e/a", "/a/", #"{"run_at": "2999-01-01T00:00:00Z"}"#, "run_at", "more than a year ahead"),
            ("fetch", "https://e/a", "/a/", #"{"metadata": [1]}"#, "metadata", "JSON object"),
            ("fetch", "https://e/a", "/a/", #"{"prority": 1}"#, "prority", "unknown option"),
            ("fetch", "https://e/a", "/a/", #"{"traceparent": "00-abc-def-01"}"#, "traceparent", "not a W3C traceparent"),
            ("fetch", "https://e/a", "/a/", #"{"traceparent": "00-00000000000000000000000000000000-00f067aa0ba902b7-01"}"#, "traceparent", "W3C"),
            ("upload", "/srv/a.jpg", "dropbox:nobody:/x/", "{}", "account", "unknown account 'nobody'"),
            ("upload", "/srv/a.jpg", "dropbox:bucket:/x/", "{}", "account", "is a s3 account, not dropbox"),
            ("upload", "/srv/a.jpg", "dropbox:box:/x/", #"{"account": "bucket"}"#, "account", "names account 'box'"),
        ]
        for item in cases {
            let refusal = try await Self.refusal(
                db, "SELECT ferry.enqueue($1, $2, $3, $4::jsonb)", [item.kind, item.source, item.destination, item.options])
            #expect(refusal.state == "22023", "\(item)")
            #expect(refusal.column == item.field, "\(item): \(refusal)")
            #expect(refusal.message.hasPrefix(item.field + ":") && refusal.message.contains(item.says), "\(item): \(refusal.message)")
        }
        #expect(try await count(db, "SELECT count(*) FROM ferry.events") == 0)
    }

    @Test("provider options are checked at enqueue against the remote side's provider: names and value types (22023, the option in COLUMN, the allowed names in HINT)")
    func providerOptions() async throws {
        let db = try await TestDatabase.make("sql_enqueue_options")
        try await db.query("INSERT INTO ferry.accounts (name, provider) VALUES ('box', 'dropbox'), ('bucket', 's3')")
        // ferry migrate wrote the providers' declarations from Swift.
        #expect(try await count(db, "SELECT count(*) FROM ferry.provider_options WHERE scheme = 'dropbox' AND kind = 'upload'") == 8)
        let cases: [(kind: String, source: String, destination: String, options: String, field: String, says: String, hint: String)] = [
            // The issue's cases: a misspelled name is refused now, not by a worker later.
            ("fetch", "https://e.com/a.jpg", "/srv/in/", #"{"mod": "x"}"#, "mod", "not an option for URL fetches", "sha256"),
            ("upload", "/srv/a.jpg", "dropbox:box:/x/", #"{"mod": "overwrite"}"#, "mod", "not an option for Dropbox uploads", "mode"),
            ("upload", "/srv/a.jpg", "dropbox:box:/x/", #"{"mode": "overwite"}"#, "mode", "unknown value 'overwite'", "add, overwrite"),
            ("upload", "/srv/a.jpg", "dropbox:box:/x/", #"{"mode": 1}"#, "mode", "must be one of add, overwrite", "Quote"),
            ("upload", "/srv/a.jpg", "dropbox:box:/x/", #"{"mute": "yes"}"#, "mute", "must be true or false", "without quotes"),
            ("fetch", "dropbox:box:/Camera/", "/srv/c/", #"{"recursive": true, "page_size": 5000}"#, "page_size", "must be from 1 to 2000", "range"),
            ("fetch", "dropbox:box:/Camera/", "/srv/c/", #"{"page_size": 2.5}"#, "page_size", "must be an integer", "whole number"),
            ("fetch", "dropbox:box:/Camera/", "/srv/c/", #"{"page_size": "10"}"#, "page_size", "must be an integer", "whole number"),
            ("fetch", "dropbox:box:/a.jpg", "/srv/c/", #"{"sha256": 12}"#, "sha256", "must be a string", "Quote"),
            ("fetch", "flickr:1234@N00", "/srv/f/", #"{"sizes": "b"}"#, "sizes", "not an option for Flickr fetches", "size"),
            ("fetch", "dropbox:box:/a.jpg", "/srv/c/", #"{"mode": "overwrite"}"#, "mode", "not an option for Dropbox fetches", "existing"),
            ("upload", "/srv/a.jpg", "/srv/out/", #"{"mode": "overwrite"}"#, "mode", "not an option for local directory uploads", "if_changed, sync, tree"),
            ("upload", "/srv/a.jpg", "s3:bucket:b/x/", #"{"storage_class": "COLD"}"#, "storage_class", "unknown value 'COLD'", "GLACIER"),
            ("copy", "s3:bucket:b/in/", "dropbox:box:/x/", #"{"recursive": true}"#, "recursive", "not an option for copies to Dropbox", "filter, if_changed"),
            ("copy", "s3:bucket:b/in/", "dropbox:box:/x/", #"{"tree": true}"#, "tree", "not an option for copies to Dropbox", "mode"),
        ]
        for item in cases {
            let options = #"{"options": \#(item.options)}"#
            do {
                try await Self.asRole(db, "ferry_producer") { connection in
                    _ = try connection.query("SELECT ferry.enqueue($1, $2, $3, $4::jsonb)", [item.kind, item.source, item.destination, options])
                }
                Issue.record("\(item) was accepted")
            } catch let error as PostgresError {
                #expect(error.sqlState?.code == "22023", "\(item): \(error)")
                #expect(error.column == item.field, "\(item): \(error)")
                let message = error.serverMessage ?? ""
                #expect(message.hasPrefix(item.field + ":") && message.contains(item.says), "\(item): \(message)")
                #expect(error.hint?.contains(item.hint) == true, "\(item): \(error.hint ?? "no hint")")
            }
        }
        // A bulk enqueue names the element.
        let bulk = try await Self.refusal(
            db,
            """
            SELECT * FROM ferry.enqueue_many('[
              {"kind": "fetch", "source": "https://example.com/1.jpg", "destination": "/srv/1/", "options": {"sha256": "\(String(repeating: "a", count: 64))"}},
              {"kind": "upload", "source": "/srv/2.jpg", "destination": "dropbox:box:/2/", "options": {"mod": "overwrite"}}]')
            """)
        #expect(bulk.state == "22023" && bulk.column == "mod" && bulk.message.hasPrefix("jobs[1].mod: not an option"), "\(bulk)")
        #expect(try await count(db, "SELECT count(*) FROM ferry.events") == 0)

        // What each provider declares is accepted, the options every provider of a kind takes included.
        let accepted: [(kind: String, source: String, destination: String, options: String)] = [
            ("upload", "/srv/a.jpg", "dropbox:box:/x/", #"{"mode": "overwrite", "autorename": false, "if_changed": true}"#),
            ("upload", "/srv/t/", "dropbox:box:/t/", #"{"tree": true}"#),
            ("upload", "/srv/a.jpg", "file:///srv/out/", #"{"if_changed": true}"#),
            ("upload", "/srv/a.jpg", "s3:bucket:b/x/", #"{"storage_class": "GLACIER_IR", "content_type": "image/jpeg"}"#),
            ("fetch", "dropbox:box:/Camera/", "/srv/c/", #"{"recursive": true, "page_size": 2000, "existing": "ignore", "filter": "{}"}"#),
            ("fetch", "flickr:1234@N00", "/srv/f/", #"{"size": "b", "max": 10}"#),
            ("copy", "s3:bucket:b/in/", "dropbox:box:/x/", #"{"mode": "overwrite", "filter": "{}"}"#),
            // A provider the database does not know is the worker's to name.
            ("fetch", "gopher://e.com/a", "/srv/g/", #"{"anything": 1}"#),
        ]
        for item in accepted {
            let options = #"{"options": \#(item.options)}"#
            _ = try await Self.asRole(db, "ferry_producer") { connection in
                try connection.query("SELECT ferry.enqueue($1, $2, $3, $4::jsonb)", [item.kind, item.source, item.destination, options])
            }
        }
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs") == accepted.count)
    }

    @Test("idempotency keys: the same arguments return the same job; different ones raise FY012 naming the key and the job")
    func idempotency() async throws {
        let db = try await TestDatabase.make("sql_enqueue_key")
        let enqueue = "SELECT ferry.enqueue('fetch', 'https://example.com/a.jpg', '/srv/a/', $1::jsonb)"
        let first = try await Self.asRole(db, "ferry_producer") { try $0.query(enqueue, [#"{"key": "order-1", "priority": 2}"#]).rows[0].decode(UUID.self, at: 0) }
        // Written another way (defaults spelled out, keys reordered): the same request.
        let again = try await Self.asRole(db, "ferry_producer") {
            try $0.query(enqueue, [#"{"priority": 2, "queue": "default", "max_attempts": 10, "key": "order-1"}"#]).rows[0].decode(UUID.self, at: 0)
        }
        #expect(again == first)
        let refusal = try await Self.refusal(db, enqueue, [#"{"key": "order-1", "priority": 3}"#])
        #expect(refusal.state == "FY012" && refusal.column == "key")
        #expect(refusal.message.contains("'order-1'") && refusal.message.contains(first.uuidString.lowercased()), "\(refusal.message)")
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs") == 1)

        // In one bulk call a repeated key names one job.
        let rows = try await Self.asRole(db, "ferry_producer") { connection in
            try connection.query(
                """
                SELECT ordinal, job_id, created FROM ferry.enqueue_many('[
                  {"kind": "fetch", "source": "https://example.com/b.jpg", "destination": "/srv/b/", "key": "k-b"},
                  {"kind": "fetch", "source": "https://example.com/b.jpg", "destination": "/srv/b/", "key": "k-b"},
                  {"kind": "fetch", "source": "https://example.com/a.jpg", "destination": "/srv/a/", "key": "order-1", "priority": 2}]')
                ORDER BY ordinal
                """
            ).rows.map { (try $0.decode(Int.self, at: 0), try $0.decode(UUID.self, at: 1), try $0.decode(Bool.self, at: 2)) }
        }
        #expect(rows.map(\.0) == [0, 1, 2])
        #expect(rows[0].1 == rows[1].1 && rows[0].2 && !rows[1].2)
        #expect(rows[2].1 == first && !rows[2].2)
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs") == 2)
    }

    @Test("enqueue_many is all or nothing and names the element at fault; readers may not enqueue")
    func bulkAllOrNothing() async throws {
        let db = try await TestDatabase.make("sql_enqueue_bulk")
        let refusal = try await Self.refusal(
            db,
            """
            SELECT * FROM ferry.enqueue_many('[
              {"kind": "fetch", "source": "https://example.com/1.jpg", "destination": "/srv/1/"},
              {"kind": "fetch", "source": "https://example.com/2.jpg", "destination": "/srv/2/"},
              {"kind": "fetch", "source": "https://example.com/3.jpg", "destination": "/srv/3/", "priority": 500}]')
            """)
        #expect(refusal.state == "22023" && refusal.column == "priority")
        #expect(refusal.message.hasPrefix("jobs[2].priority:"), "\(refusal.message)")
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs") == 0)

        let made = try await Self.asRole(db, "ferry_producer") { connection in
            try connection.query(
                """
                SELECT count(*) FROM ferry.enqueue_many((SELECT jsonb_agg(jsonb_build_object(
                    'kind', 'fetch', 'source', 'https://example.com/' || i || '.jpg', 'destination', '/srv/many/',
                    'batch', 'many')) FROM generate_series(1, 500) i))
                """
            ).rows[0].decode(Int.self, at: 0)
        }
        #expect(made == 500)
        #expect(try await count(db, "SELECT count(*) FROM ferry.job_status WHERE batch = 'many' AND status = 'queued'") == 500)

        do {
            try await Self.asRole(db, "ferry_reader") { connection in
                _ = try connection.query("SELECT ferry.enqueue('fetch', 'https://e/a', '/a/')")
            }
            Issue.record("a reader enqueued")
        } catch let error as PostgresError {
            #expect(error.sqlState?.code == "42501")
        }
    }

    @Test("a resolved event settles a job's endpoints and details; the Swift fold agrees (projection verify clean)")
    func resolvedEvent() async throws {
        let db = try await TestDatabase.make("sql_enqueue_resolved")
        let store = db.store()
        let id = try await db.query("SELECT ferry.enqueue('fetch', 'https://example.com/r.jpg', '/srv/r/')").rows[0].decode(UUID.self, at: 0)
        let claimed = try await store.claim(worker: "w", queues: ["default"], limit: 1)
        #expect(claimed.first?.jobID == id)
        // Only the claim holder settles it: a stale lease is refused.
        let stale = try await store.record([JobOutcome(jobID: id, lease: 7, type: .resolved, data: ["source": .string("https://x/evil")])])
        #expect(stale.rejected == [id])
        let accepted = try await store.record([JobOutcome(
            jobID: id, lease: 1, type: .resolved,
            data: ["source": .string("https://example.com/r.jpg"), "destination": .string("/srv/r/r.jpg"),
                   "spec": .object(["root": .string("/srv/r/")]), "bytes_total": .int(42)])])
        #expect(accepted.accepted == [id])
        let row = try await db.query("SELECT destination, spec->>'root', bytes_total FROM ferry.jobs WHERE job_id = $1", [id]).rows[0]
        #expect(try row.decode(String.self, at: 0) == "/srv/r/r.jpg")
        #expect(try row.decode(String.self, at: 1) == "/srv/r/")
        #expect(try row.decode(Int.self, at: 2) == 42)
        let report = try await store.projection.verify()
        #expect(report.isClean, "\(report)")
    }
}
