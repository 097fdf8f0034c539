import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

/// `ferry retry --option`: a `requeued` event may change a job's provider options, and nothing else of it, checked
/// by the job's own provider's declarations whoever appends it; the fold (SQL and Swift) takes the spec it carries.
@Suite("retry with options", .tags(.postgres))
struct RequeueOptionsTests {
    /// An upload to Dropbox as the CLI records it (the store does not check endpoints; no account needed here).
    static func dropboxUpload(batch: String?, queue: String) -> JobSpec {
        JobSpec(
            jobID: UUIDv7.make(), kind: .upload, source: "/srv/out/\(UUID().uuidString).tar",
            destination: "dropbox:box:/Backups/b.tar", account: nil, queue: queue, batch: batch, priority: 0, maxAttempts: 3,
            runAt: nil, idempotencyKey: nil, metadata: nil, bytesTotal: 100, details: ["autorename": .bool(false)])
    }

    static func webFetch(batch: String?, queue: String) -> JobSpec {
        JobSpec(
            jobID: UUIDv7.make(), kind: .fetch, source: "https://example.com/\(UUID().uuidString).jpg", destination: "/srv/in/a.jpg",
            account: nil, queue: queue, batch: batch, priority: 0, maxAttempts: 3, runAt: nil, idempotencyKey: nil,
            metadata: nil, bytesTotal: nil, details: ["root": .string("/srv/in/")])
    }

    /// Enqueues `specs` on a queue of their own and fails every one of them.
    static func failed(_ store: FerryStore, _ specs: [JobSpec]) async throws -> [UUID] {
        let ids = try await store.enqueue(specs).map(\.jobID)
        let claimed = try await store.claim(worker: "w", queues: [specs[0].queue], limit: specs.count)
        #expect(claimed.count == specs.count)
        _ = try await store.record(claimed.map { .failed($0, error: "destination_exists: a different file is at the path") })
        return ids
    }

    static func row(_ db: TestDatabase, _ id: UUID) async throws -> (state: String, version: Int, spec: JSONValue) {
        let row = try await db.query("SELECT state, version, spec::text FROM ferry.jobs WHERE job_id = $1::uuid", [id]).rows[0]
        return (try row.decode(String.self, at: 0), try row.decode(Int.self, at: 1), try JSONValue.parse(try row.decode(String.self, at: 2)))
    }

    @Test("a retry with options: the spec takes them, the event records them and the spec, status shows them, JobFold agrees")
    func retryChangesOptions() async throws {
        let db = try await TestDatabase.make("requeue_options")
        let store = db.store()
        defer { store.client.close() }
        let id = try await Self.failed(store, [Self.dropboxUpload(batch: nil, queue: "ro1")])[0]

        let outcome = try #require(try await store.retry(.job(id), requestedBy: "tester", options: ["mode": .string("overwrite")]).first)
        #expect(outcome.action == .requeued && outcome.state == "queued")
        let after = try await Self.row(db, id)
        #expect(after.state == "queued")
        #expect(after.spec == .object(["autorename": .bool(false), "mode": .string("overwrite")]), "\(after.spec)")
        let event = try #require(try await store.reads.events(of: id).last)
        let data = try JSONValue.parse(event.data)
        #expect(event.type == "requeued" && data["by"] == .string("tester"))
        #expect(data["options"] == .object(["mode": .string("overwrite")]) && data["spec"] == after.spec)
        #expect(try await store.retryOptions(of: id) == ["mode": .string("overwrite")])

        // Failed again and retried with other options: the later retry wins, the earlier change stays in the spec.
        let claimed = try await store.claim(worker: "w", queues: ["ro1"], limit: 1)
        _ = try await store.record([.failed(claimed[0], error: "again")])
        _ = try await store.retry(.job(id), requestedBy: "tester", options: ["mode": .string("add"), "mute": .bool(true)])
        #expect(try await Self.row(db, id).spec == .object(["autorename": .bool(false), "mode": .string("add"), "mute": .bool(true)]))
        #expect(try await store.retryOptions(of: id) == ["mode": .string("add"), "mute": .bool(true)])
        // A retry without options leaves the spec as it is.
        let again = try await store.claim(worker: "w", queues: ["ro1"], limit: 1)
        _ = try await store.record([.failed(again[0], error: "third")])
        _ = try await store.retry(.job(id), requestedBy: "tester")
        #expect(try await Self.row(db, id).spec["mode"] == .string("add"))

        // The Swift fold (ferry projection verify) reads the same spec from the events.
        #expect(try await store.projection.verify().isClean)
    }

    @Test("an option the job's provider does not take, a wrong value or a fixed option: refused by name, nothing written")
    func refusals() async throws {
        let db = try await TestDatabase.make("requeue_refused")
        let store = db.store()
        defer { store.client.close() }
        let ids = try await Self.failed(store, [Self.dropboxUpload(batch: nil, queue: "ro2")])
        let id = ids[0]
        let before = try await Self.row(db, id)

        func refusal(_ options: [String: JSONValue]) async -> ValidationIssue? {
            do {
                _ = try await store.retry(.job(id), requestedBy: "t", options: options)
                return nil
            } catch {
                return error as? ValidationIssue
            }
        }
        let misspelled = try #require(await refusal(["mod": .string("overwrite")]))
        #expect(misspelled.field == "options.mod", "\(misspelled)")
        #expect(misspelled.problem == "not an option a retry changes for Dropbox uploads", "\(misspelled)")
        #expect(misspelled.fix.contains("autorename, existing, if_changed, mode, mute") && !misspelled.fix.contains("tree"), "\(misspelled)")

        let value = try #require(await refusal(["mode": .string("overwite")]))
        #expect(value.field == "options.mode" && value.problem.contains("unknown value 'overwite'") && value.fix.contains("overwrite"), "\(value)")
        let type = try #require(await refusal(["autorename": .string("yes")]))
        #expect(type.field == "options.autorename" && type.problem == "must be true or false", "\(type)")
        let fixed = try #require(await refusal(["tree": .bool(true)]))
        #expect(fixed.field == "options.tree" && fixed.problem.contains("fixed at enqueue"), "\(fixed)")
        let control = try #require(await refusal(["mode": .string("over\nwrite")]))
        #expect(control.field == "options.mode" && control.problem.contains("printable"), "\(control)")

        let after = try await Self.row(db, id)
        #expect(after.state == "failed" && after.version == before.version && after.spec == before.spec, "nothing was appended")
        #expect(try await store.retryOptions(of: id).isEmpty)
    }

    @Test("a batch retry with options is all or nothing: one job whose provider refuses them keeps every job as it was")
    func batchAllOrNothing() async throws {
        let db = try await TestDatabase.make("requeue_batch")
        let store = db.store()
        defer { store.client.close() }
        let uploads = try await Self.failed(store, [Self.dropboxUpload(batch: "nightly", queue: "ro3"), Self.dropboxUpload(batch: "nightly", queue: "ro3")])
        let fetch = try await Self.failed(store, [Self.webFetch(batch: "nightly", queue: "ro3")])[0]

        do {
            _ = try await store.retry(.batch("nightly"), requestedBy: "t", options: ["mode": .string("overwrite")])
            Issue.record("the web fetch takes no mode")
        } catch let issue as ValidationIssue {
            #expect(issue.field == "job \(fetch.uuidString.lowercased()): options.mode", "\(issue)")
            #expect(issue.problem == "not an option a retry changes for URL fetches", "\(issue)")
            #expect(issue.fix.contains("existing, sha256"), "\(issue)")
        }
        for id in uploads + [fetch] { #expect(try await Self.row(db, id).state == "failed") }

        // Once the fetch is discarded (a batch retry leaves it alone), every job retried takes the option.
        _ = try await store.discard(.job(fetch), requestedBy: "t")
        let retried = try await store.retry(.batch("nightly"), requestedBy: "t", options: ["mode": .string("overwrite")])
        #expect(Set(retried.filter { $0.action == .requeued }.map(\.jobID)) == Set(uploads))
        for id in uploads { #expect(try await Self.row(db, id).spec["mode"] == .string("overwrite")) }
        #expect(try await Self.row(db, fetch).state == "discarded")
        #expect(try await store.projection.verify().isClean)
    }

    @Test("a job enqueued from SQL and not yet settled keeps the change under unresolved.options, for the worker that settles it")
    func unresolvedJob() async throws {
        let db = try await TestDatabase.make("requeue_unresolved")
        let store = db.store()
        defer { store.client.close() }
        let id = try await db.query(
            "SELECT ferry.enqueue('fetch', 'https://example.com/u.jpg', '/srv/in/u.jpg', '{\"queue\": \"ro4\", \"options\": {\"existing\": \"immutable\"}}')"
        ).rows[0].decode(UUID.self, at: 0)
        let claimed = try await store.claim(worker: "w", queues: ["ro4"], limit: 1)
        _ = try await store.record([.failed(claimed[0], error: "destination_exists")])
        _ = try await store.retry(.job(id), requestedBy: "t", options: ["existing": .string("replace"), "sha256": .string(String(repeating: "ab", count: 32))])
        let spec = try await Self.row(db, id).spec
        #expect(spec == .object(["unresolved": .object(["options": .object([
            "existing": .string("replace"), "sha256": .string(String(repeating: "ab", count: 32)),
        ])])]), "\(spec)")
        #expect(try await store.projection.verify().isClean)
    }

    @Test("raw requeued events from a producer: job fields, unknown options, a spec that is not the options' are refused as ferry.enqueue refuses")
    func rawProducer() async throws {
        let logins = try await LeastPrivilegeTests.Logins.make("requeue_raw")
        let store = logins.db.store()
        defer { store.client.close() }
        let ids = try await Self.failed(store, [Self.dropboxUpload(batch: nil, queue: "ro5"), Self.dropboxUpload(batch: nil, queue: "ro5")])
        let id = ids[0]
        let before = try await Self.row(logins.db, id)

        func append(_ data: String) async -> PostgresError? {
            do {
                _ = try await logins.run(
                    .producer, "INSERT INTO ferry.events (job_id, version, type, data) SELECT job_id, version + 1, 'requeued', \(data) FROM ferry.jobs WHERE job_id = $1::uuid",
                    [id])
                return nil
            } catch {
                return error as? PostgresError
            }
        }
        let cases: [(data: String, column: String, message: String)] = [
            (#"'{"by": "p", "destination": "/etc/"}'::jsonb"#, "destination", "destination: a retry does not change the job's destination"),
            (#"'{"by": "p", "options": {"destination": "/etc/"}}'::jsonb"#, "destination", "options.destination: not an option a retry changes for Dropbox uploads"),
            (#"'{"by": "p", "options": {"mod": "overwrite"}}'::jsonb"#, "mod", "options.mod: not an option a retry changes for Dropbox uploads"),
            (#"'{"by": "p", "options": {"account": "other"}}'::jsonb"#, "account", "options.account: fixed at enqueue"),
            (#"'{"by": "p", "options": {"mode": 1}}'::jsonb"#, "mode", "options.mode: must be one of add, overwrite"),
            // Options right, but the spec is missing or carries more than they make.
            (#"'{"by": "p", "options": {"mode": "overwrite"}}'::jsonb"#, "spec", "spec: must be the job's spec with \"options\" applied"),
            (#"jsonb_build_object('options', '{"mode": "overwrite"}'::jsonb, 'spec', ferry.requeued_spec(spec, '{"mode": "overwrite", "root": "/etc/"}'))"#,
             "spec", "spec: must be the job's spec with \"options\" applied"),
            (#"jsonb_build_object('by', 'p', 'spec', '{"mode": "overwrite"}'::jsonb)"#, "spec", "spec: a retry changes the spec only through \"options\""),
        ]
        for hostile in cases {
            let error = await append(hostile.data)
            #expect(error?.sqlState == .invalidParameterValue, "\(hostile.data): \(String(describing: error))")
            #expect(error?.column == hostile.column, "\(hostile.data): \(String(describing: error))")
            #expect(error?.serverMessage?.hasPrefix(hostile.message) == true, "\(hostile.data): \(String(describing: error))")
        }
        let unchanged = try await Self.row(logins.db, id)
        #expect(unchanged.state == "failed" && unchanged.version == before.version && unchanged.spec == before.spec)

        // Written as the documentation says, the producer's retry goes through; so does a plain one.
        #expect(await append(#"jsonb_build_object('by', 'p', 'options', '{"mode": "overwrite"}'::jsonb, 'spec', ferry.requeued_spec(spec, '{"mode": "overwrite"}'))"#) == nil)
        #expect(try await Self.row(logins.db, id).spec["mode"] == .string("overwrite"))
        _ = try await logins.run(
            .producer, "INSERT INTO ferry.events (job_id, version, type, data) SELECT job_id, version + 1, 'requeued', '{\"by\": \"p\"}' FROM ferry.jobs WHERE job_id = $1::uuid",
            [ids[1]])
        #expect(try await Self.row(logins.db, ids[1]).state == "queued")
        // The store's retry works for a producer too (the raw-event check and the store's agree).
        let producer = logins.store(.producer)
        defer { producer.client.close() }
        let claimed = try await store.claim(worker: "w", queues: ["ro5"], limit: 2)
        _ = try await store.record(claimed.map { .failed($0, error: "x") })
        #expect(try await producer.retry(.job(ids[1]), requestedBy: "p", options: ["mute": .bool(true)]).first?.action == .requeued)
        #expect(try await store.projection.verify().isClean)
    }
}
