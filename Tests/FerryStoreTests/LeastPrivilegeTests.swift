import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

/// Migration 0015: which role may append which event, read what, and write nothing else. Every check connects as
/// a real login role that is a member of one group role only.
@Suite("least privilege", .tags(.postgres))
struct LeastPrivilegeTests {
    /// The ways to connect: the migrating superuser, a login in one group role each, and a login in none.
    enum Login: String, CaseIterable, CustomStringConvertible {
        case owner, producer, worker, reader, nobody
        var description: String { rawValue }
        var group: String? {
            switch self {
            case .owner, .nobody: nil
            case .producer: "ferry_producer"
            case .worker: "ferry_worker"
            case .reader: "ferry_reader"
            }
        }
    }

    /// A test database with one login role per ``Login``.
    struct Logins {
        let db: TestDatabase
        let names: [Login: String]

        static func make(_ label: String) async throws -> Logins {
            let db = try await TestDatabase.make(label)
            let suffix = UInt32.random(in: 0...UInt32.max)
            var names: [Login: String] = [.owner: "postgres"]
            for login in Login.allCases where login != .owner {
                let name = "lp_\(login.rawValue)_\(suffix)"
                try await db.query("CREATE ROLE \(name) LOGIN" + (login.group.map { " IN ROLE \($0)" } ?? ""))
                names[login] = name
            }
            return Logins(db: db, names: names)
        }

        func url(_ login: Login) -> String {
            db.url.replacingOccurrences(of: "postgres@", with: "\(names[login]!)@")
        }

        func client(_ login: Login) -> PostgresClient {
            PostgresClient(configuration: PostgresConfiguration(connectionString: url(login), poolSize: 1))
        }

        func store(_ login: Login) -> FerryStore {
            FerryStore(client: client(login), logger: .init(label: login.rawValue))
        }

        /// Runs one statement as `login` on a connection of its own.
        func run(_ login: Login, _ sql: String, _ binds: [any PostgresBindable] = []) async throws -> PostgresQueryResult {
            let client = client(login)
            defer { client.close() }
            return try await client.withConnection { try $0.query(sql, binds) }
        }
    }

    /// What each role may append. Exhaustive switches: a new event type does not compile until it is placed here.
    /// `cancelled` is asked of a queued job (a producer's), the running case has its own test.
    static func mayAppend(_ type: JobEventType, as login: Login) -> Bool {
        switch login {
        case .owner: return true
        case .reader, .nobody: return false
        case .producer:
            switch type {
            case .enqueued, .cancelRequested, .cancelled, .requeued, .discarded: return true
            case .claimed, .progress, .retryScheduled, .deferred, .released, .rescued, .succeeded, .failed, .resolved:
                return false
            }
        case .worker:
            switch type {
            case .enqueued, .claimed, .progress, .retryScheduled, .deferred, .released, .rescued, .succeeded, .failed,
                .resolved:
                return true
            case .cancelRequested, .cancelled, .requeued, .discarded: return false
            }
        }
    }

    /// The group role a refusal names as the one needed.
    static func needed(_ type: JobEventType, by login: Login) -> String {
        login == .producer ? "ferry_worker" : "ferry_producer"
    }

    /// A job (set up by the owner) in the state where `type` is a valid next event, and that event's data.
    static func prepare(_ type: JobEventType, _ logins: Logins, _ owner: FerryStore) async throws -> (job: UUID, version: Int, data: String) {
        if type == .enqueued {
            // The data of a real enqueue, for a new job id.
            let template = try await owner.enqueue([StoreFixtures.fetchSpec(queue: "template")])[0].jobID
            let data = try await logins.db.query(
                "SELECT data::text FROM ferry.events WHERE job_id = $1::uuid AND version = 1", [template]
            ).rows[0].decode(String.self, at: 0)
            return (UUIDv7.make(), 1, data)
        }
        let queue = "q-\(UUID().uuidString)"
        let job = try await owner.enqueue([StoreFixtures.fetchSpec(queue: queue)])[0].jobID
        let runAt = "\"run_at\": \"2999-01-01T00:00:00Z\""
        switch type {
        case .enqueued: fatalError("handled above")
        case .claimed: return (job, 1, #"{"lease": 1, "worker": "w"}"#)
        case .cancelled: return (job, 1, #"{"reason": "test"}"#)
        case .progress, .retryScheduled, .deferred, .released, .rescued, .cancelRequested, .succeeded, .failed, .requeued,
            .resolved, .discarded:
            let claimed = try await owner.claim(worker: "w", queues: [queue], limit: 1)
            #expect(claimed.count == 1)
            switch type {
            case .progress: return (job, 2, #"{"lease": 1, "bytes_done": 10}"#)
            case .retryScheduled: return (job, 2, #"{"lease": 1, "error": "x", \#(runAt)}"#)
            case .deferred: return (job, 2, #"{"lease": 1, "reason": "x", \#(runAt)}"#)
            case .released: return (job, 2, #"{"lease": 1}"#)
            case .rescued: return (job, 2, #"{"lease": 1, "reason": "x"}"#)
            case .cancelRequested: return (job, 2, "{}")
            case .succeeded: return (job, 2, #"{"lease": 1}"#)
            case .failed: return (job, 2, #"{"lease": 1, "error": "x"}"#)
            case .resolved: return (job, 2, #"{"lease": 1, "source": "https://example.com/r.jpg", "spec": {}}"#)
            default:
                // requeued and discarded: a failed job.
                try await logins.db.query(
                    "INSERT INTO ferry.events (job_id, version, type, data) VALUES ($1::uuid, 3, 'failed', '{\"lease\": 1, \"error\": \"x\"}')",
                    [job])
                return (job, 3, #"{"by": "test"}"#)
            }
        }
    }

    /// Everything a refused append must leave as it was: the log's size and the job's projection row.
    static func snapshot(_ db: TestDatabase, _ job: UUID) async throws -> (events: Int, row: String?) {
        let events = try await db.query("SELECT count(*) FROM ferry.events").rows[0].decode(Int.self, at: 0)
        let row = try await db.query("SELECT to_jsonb(j)::text FROM ferry.jobs j WHERE job_id = $1::uuid", [job]).rows.first
        return (events, try row?.decode(String.self, at: 0))
    }

    static let append = "INSERT INTO ferry.events (job_id, version, type, data) VALUES ($1::uuid, $2, $3, $4::jsonb)"

    @Test("every event type as every role: allowed as documented, otherwise 42501 naming the type and nothing written")
    func everyTypeEveryRole() async throws {
        let logins = try await Logins.make("lpmatrix")
        let owner = logins.db.store()
        defer { owner.client.close() }
        for type in JobEventType.allCases {
            for login in Login.allCases {
                let (job, version, data) = try await Self.prepare(type, logins, owner)
                let before = try await Self.snapshot(logins.db, job)
                var refusal: PostgresError?
                do {
                    _ = try await logins.run(login, Self.append, [job, version + (type == .enqueued ? 0 : 1), type.rawValue, data])
                } catch let error as PostgresError {
                    refusal = error
                }
                let after = try await Self.snapshot(logins.db, job)
                if Self.mayAppend(type, as: login) {
                    #expect(refusal == nil, "\(login) \(type.rawValue): \(String(describing: refusal?.serverMessage))")
                    #expect(after.events == before.events + 1, "\(login) \(type.rawValue)")
                    let stored = try await logins.db.query("SELECT version FROM ferry.jobs WHERE job_id = $1::uuid", [job])
                    #expect(try stored.rows.first?.decode(Int.self, at: 0) == (type == .enqueued ? 1 : version + 1))
                } else {
                    #expect(refusal?.sqlState == .insufficientPrivilege, "\(login) \(type.rawValue): \(String(describing: refusal))")
                    if login == .producer || login == .worker {
                        // Our own refusal (readers and roles without a group cannot INSERT at all).
                        let message = refusal?.serverMessage ?? ""
                        #expect(message.contains("\"\(type.rawValue)\""), "\(message)")
                        #expect(message.contains(logins.names[login]!), "\(message)")
                        #expect(message.contains(Self.needed(type, by: login)), "\(message)")
                    }
                    #expect(after.events == before.events, "\(login) \(type.rawValue): the log changed")
                    #expect(after.row == before.row, "\(login) \(type.rawValue): the projection changed")
                }
            }
        }
    }

    @Test("the issue's attack: a producer appends claimed (worker evil) and succeeded; both refused, the job stays queued")
    func producerCannotFinishJobs() async throws {
        let logins = try await Logins.make("lpattack")
        let producer = logins.store(.producer)
        let worker = logins.store(.worker)
        defer {
            producer.client.close()
            worker.client.close()
        }
        let job = try await producer.enqueue([StoreFixtures.fetchSpec()])[0].jobID
        for (version, type, data) in [(2, "claimed", #"{"lease": 1, "worker": "evil"}"#), (2, "succeeded", #"{"lease": 1}"#),
                                      (3, "succeeded", #"{"lease": 1}"#)] {
            await #expect {
                _ = try await logins.run(.producer, Self.append, [job, version, type, data])
            } throws: { error in
                let error = error as? PostgresError
                return error?.sqlState == .insufficientPrivilege && error?.serverMessage?.contains("\"\(type)\"") == true
            }
        }
        // Through the store's own statements too.
        await #expect {
            try await producer.append(jobID: job, expectedVersion: 1, type: .claimed, data: .object(["lease": .int(1), "worker": .string("evil")]))
        } throws: { error in
            (error as? PostgresError)?.sqlState == .insufficientPrivilege
        }
        await #expect {
            _ = try await producer.claim(worker: "evil", queues: ["default"], limit: 1)
        } throws: { error in
            (error as? PostgresError)?.sqlState == .insufficientPrivilege
        }
        // One statement mixing an allowed and a refused event writes neither.
        let other = UUIDv7.make()
        let enqueuedData = try await logins.db.query("SELECT data::text FROM ferry.events WHERE job_id = $1::uuid", [job]).rows[0].decode(String.self, at: 0)
        await #expect {
            _ = try await logins.run(
                .producer,
                "INSERT INTO ferry.events (job_id, version, type, data) VALUES ($1::uuid, 1, 'enqueued', $2::jsonb), ($3::uuid, 2, 'claimed', '{\"lease\": 1, \"worker\": \"evil\"}')",
                [other, enqueuedData, job])
        } throws: { error in
            (error as? PostgresError)?.sqlState == .insufficientPrivilege
        }
        #expect(try await logins.db.query("SELECT count(*) FROM ferry.events").rows[0].decode(Int.self, at: 0) == 1)
        let status = try await producer.reads.jobStatus(.job(job))[0]
        #expect(status.state == "queued" && status.worker == nil && status.eventCount == 1)
        #expect(try await producer.reads.jobStatus(.job(other)).isEmpty)
        // A real worker still gets the first claim.
        let claimed = try await worker.claim(worker: "real", queues: ["default"], limit: 1)
        #expect(claimed.map(\.jobID) == [job] && claimed.first?.lease == 1)
    }

    @Test("cancelled: a producer's for a queued job, a worker's for a running one; the other way round is refused")
    func cancelledDependsOnState() async throws {
        let logins = try await Logins.make("lpcancel")
        let producer = logins.store(.producer)
        let worker = logins.store(.worker)
        defer {
            producer.client.close()
            worker.client.close()
        }
        let ids = try await producer.enqueue([StoreFixtures.fetchSpec(), StoreFixtures.fetchSpec()]).map(\.jobID)
        let running = try await worker.claim(worker: "w", queues: ["default"], limit: 1)[0]
        let queued = ids.first { $0 != running.jobID }!

        await #expect {
            _ = try await logins.run(.producer, Self.append, [running.jobID, 3, "cancelled", #"{"lease": 1}"#])
        } throws: { error in
            let error = error as? PostgresError
            return error?.sqlState == .insufficientPrivilege
                && error?.serverMessage?.contains("\"cancelled\"") == true && error?.serverMessage?.contains("running") == true
                && error?.serverMessage?.contains("ferry_worker") == true
        }
        #expect(try await producer.reads.jobStatus(.job(running.jobID))[0].state == "running")
        await #expect {
            _ = try await logins.run(.worker, Self.append, [queued, 2, "cancelled", "{}"])
        } throws: { error in
            let error = error as? PostgresError
            return error?.sqlState == .insufficientPrivilege && error?.serverMessage?.contains("ferry_producer") == true
        }
        #expect(try await producer.reads.jobStatus(.job(queued))[0].state == "queued")

        // The legitimate ways: ferry cancel (cancelled if queued, cancel_requested if running), then the worker.
        #expect(try await producer.cancel(.job(queued), requestedBy: "t").first?.action == .cancelled)
        #expect(try await producer.cancel(.job(running.jobID), requestedBy: "t").first?.action == .cancelRequested)
        #expect(try await worker.record([.cancelled(running)]).accepted == [running.jobID])
        #expect(try await producer.reads.jobStatus(.job(running.jobID))[0].state == "cancelled")
        #expect(try await producer.retry(.job(running.jobID), requestedBy: "t").first?.action == .requeued)
    }

    @Test("store operations of each role still work with least privilege")
    func legitimateFlows() async throws {
        let logins = try await Logins.make("lpflows")
        try await logins.db.query(
            "INSERT INTO ferry.accounts (name, provider, refresh_token_sealed) VALUES ('acct', 'dropbox', '\\x0102')")
        let producer = logins.store(.producer)
        let worker = logins.store(.worker)
        defer {
            producer.client.close()
            worker.client.close()
        }
        // Producer: enqueue (the account check reads the account's non-secret columns), cancel, retry.
        let ids = try await producer.enqueue(
            [StoreFixtures.fetchSpec(batch: "b", account: "acct")] + (0..<5).map { _ in StoreFixtures.fetchSpec(batch: "b") }
        ).map(\.jobID)
        #expect(ids.count == 6)

        // Worker: register, claim, progress, fan-out, every outcome, rescue, release, counters.
        try await worker.register(WorkerRegistration(name: "w", queues: ["default"], concurrency: 6, host: "h", pid: 1))
        #expect(try await worker.heartbeat(worker: "w"))
        let claimed = try await worker.claim(worker: "w", queues: ["default"], limit: 6)
        #expect(claimed.count == 6)
        #expect(try await worker.recordProgress(.progress(claimed[0], bytesDone: 10)).accepted)
        let fanned = try await worker.fanOut(
            [FanOutChild(source: "https://example.com/child.jpg", destination: "/srv/in/child.jpg", account: nil, idempotencyKey: "child-1")],
            from: claimed[0], progress: .progress(claimed[0], bytesDone: 20))
        #expect(fanned.accepted && fanned.created == 1)
        let later = Date().addingTimeInterval(3600)
        let outcomes: [JobOutcome] = [
            .succeeded(claimed[0], bytes: 1000), .failed(claimed[1], error: "x"), .retry(claimed[2], error: "x", at: later),
            .deferred(claimed[3], reason: "x", until: later), .released(claimed[4], reason: "x"),
        ]
        #expect(try await worker.record(outcomes).accepted.count == 5)
        try await worker.deregister(worker: "w")
        #expect(try await worker.rescueStaleJobs(staleAfter: .seconds(0), poisonAfter: 3).map(\.jobID) == [claimed[5].jobID])
        let again = try await worker.claim(worker: "w2", queues: ["default"], limit: 10)
        #expect(!again.isEmpty)
        _ = try await worker.releaseOrphanedClaims(worker: "w2", running: [], grace: .seconds(0))
        _ = try await worker.compactCounters()

        // Producer again: cancel what is queued, retry what failed.
        let cancelled = try await producer.cancel(.batch("b"), requestedBy: "t")
        #expect(cancelled.contains { $0.action == .cancelled })
        let retried = try await producer.retry(.job(claimed[1].jobID), requestedBy: "t")
        #expect(retried.first?.action == .requeued)
        let differences = try await logins.db.query("SELECT count(*) FROM ferry.projection_differences(10)").rows[0]
        #expect(try differences.decode(Int.self, at: 0) == 0)
    }

    @Test("readers see the status views and nothing else; roles without a group see nothing")
    func readerSeesViewsOnly() async throws {
        let logins = try await Logins.make("lpreader")
        let owner = logins.db.store()
        defer { owner.client.close() }
        _ = try await owner.enqueue([StoreFixtures.fetchSpec(batch: "b"), StoreFixtures.fetchSpec(batch: "b")])
        // Something for every view to show: a worker, an account, a job finished within the hour, a schedule with
        // one fired tick.
        try await owner.register(WorkerRegistration(name: "w-lp", queues: ["default"], concurrency: 1, host: "h", pid: 1))
        try await logins.db.query("INSERT INTO ferry.accounts (name, provider) VALUES ('lp-box', 'dropbox')")
        let claimed = try await owner.claim(worker: "w-lp", queues: ["default"], limit: 1)
        _ = try await owner.record(claimed.map { .succeeded($0, bytes: 10) })
        _ = try await logins.db.query(
            """
            INSERT INTO ferry.schedule_events (schedule, type, data)
            VALUES ('s', 'added', '{"every_seconds": 3600, "timezone": "UTC", "template": {}}')
            """)
        _ = try await logins.db.query("INSERT INTO ferry.schedule_ticks (schedule, tick_at, error) VALUES ('s', now(), 'test')")
        // Every view of the schema is a status view; every table is refused. Listed from the catalog, so a new
        // table or view cannot be forgotten here.
        let relations = try await logins.db.query(
            "SELECT c.relname, c.relkind::text FROM pg_class c WHERE c.relnamespace = 'ferry'::regnamespace AND c.relkind IN ('r', 'v', 'm', 'p') ORDER BY 1"
        ).rows.map { (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1)) }
        let views = relations.filter { $0.1 == "v" }.map(\.0)
        #expect(Set(views) == [
            "job_status", "batch_status", "queue_stats", "job_timeline", "worker_status", "account_status", "throughput",
            "schedule_status", "schedule_runs", "schema_version", "archived_job_status", "job_search", "batch_archive_totals",
        ])
        for (name, kind) in relations {
            let sql = "SELECT count(*) FROM ferry.\(PostgresIdentifier(name).quoted)"
            if kind == "v" {
                let rows = try await logins.run(.reader, sql).rows[0].decode(Int.self, at: 0)
                // Nothing is archived here (ArchivedAnswerTests reads archived_job_status and batch_archive_totals as a reader).
                #expect(rows >= (["archived_job_status", "batch_archive_totals"].contains(name) ? 0 : 1), "\(name)")
            } else {
                await #expect("reader reads ferry.\(name)") {
                    _ = try await logins.run(.reader, sql)
                } throws: { error in
                    (error as? PostgresError)?.sqlState == .insufficientPrivilege
                }
            }
            await #expect("nobody reads ferry.\(name)") {
                _ = try await logins.run(.nobody, sql)
            } throws: { error in
                (error as? PostgresError)?.sqlState == .insufficientPrivilege
            }
        }
        // queue_stats calls a function with the reader's rights.
        let stats = try await logins.run(.reader, "SELECT jobs, due FROM ferry.queue_stats WHERE state = 'queued'").rows[0]
        #expect(try stats.decode(Int.self, at: 0) == 1 && stats.decode(Int.self, at: 1) == 1)
        // Readers write nothing.
        await #expect {
            _ = try await logins.run(.reader, Self.append, [UUIDv7.make(), 1, "enqueued", "{}"])
        } throws: { error in
            (error as? PostgresError)?.sqlState == .insufficientPrivilege
        }
    }

    @Test("sealed secrets are readable by the owner and workers only")
    func sealedSecrets() async throws {
        let logins = try await Logins.make("lpsecrets")
        try await logins.db.query(
            """
            INSERT INTO ferry.accounts (name, provider, secrets_sealed, app_secret_sealed, refresh_token_sealed,
                                        access_token_sealed)
            VALUES ('acct', 'dropbox', '\\x00', '\\x01', '\\x02', '\\x03')
            """)
        // Every sealed column of the schema (found in the catalog), for every role.
        let sealed = try await logins.db.query(
            """
            SELECT table_name, column_name FROM information_schema.columns
             WHERE table_schema = 'ferry' AND column_name LIKE '%\\_sealed' ORDER BY 1, 2
            """
        ).rows.map { (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1)) }
        #expect(sealed.count == 4)
        for (table, column) in sealed {
            let sql = "SELECT \(PostgresIdentifier(column).quoted) FROM ferry.\(PostgresIdentifier(table).quoted)"
            for login in Login.allCases {
                if login == .owner || login == .worker {
                    #expect(try await logins.run(login, sql).rows.count == 1, "\(login) \(column)")
                } else {
                    await #expect("\(login) reads \(column)") {
                        _ = try await logins.run(login, sql)
                    } throws: { error in
                        (error as? PostgresError)?.sqlState == .insufficientPrivilege
                    }
                }
            }
        }
        // Producers still read what enqueue needs.
        let row = try await logins.run(.producer, "SELECT name, provider, status FROM ferry.accounts").rows
        #expect(row.count == 1)
        // Workers open credentials through the store (the sealed columns).
        let count = try await logins.run(.worker, "SELECT count(*) FROM ferry.accounts WHERE refresh_token_sealed IS NOT NULL").rows[0]
        #expect(try count.decode(Int.self, at: 0) == 1)
    }

    @Test("application roles cannot write the projection from a trigger of their own, forge log columns or write account history")
    func otherHoles() async throws {
        let logins = try await Logins.make("lpholes")
        let owner = logins.db.store()
        defer { owner.client.close() }
        let job = try await owner.enqueue([StoreFixtures.fetchSpec()])[0].jobID
        let before = try await Self.snapshot(logins.db, job)
        for login in [Login.producer, .worker] {
            let client = logins.client(login)
            defer { client.close() }
            // A trigger on a temporary table runs the write one trigger level down: still refused.
            await #expect("\(login): write from a trigger") {
                try await client.withConnection { connection in
                    try connection.execute("CREATE TEMP TABLE IF NOT EXISTS poke (x int)")
                    try connection.execute(
                        "CREATE OR REPLACE FUNCTION pg_temp.poke() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE ferry.jobs SET state = 'succeeded'; RETURN NULL; END $$")
                    try connection.execute("CREATE TRIGGER poke AFTER INSERT ON poke FOR EACH STATEMENT EXECUTE FUNCTION pg_temp.poke()")
                    try connection.execute("INSERT INTO poke VALUES (1)")
                }
            } throws: { error in
                (error as? PostgresError)?.sqlState == "FY011"
            }
            // A temporary table named pg_class (found first on the search path) does not fool the guard.
            await #expect("\(login): temporary pg_class") {
                try await client.withConnection { connection in
                    try connection.execute("CREATE TEMP TABLE IF NOT EXISTS pg_class (oid oid, relowner oid)")
                    try connection.execute(
                        "INSERT INTO pg_class SELECT 'ferry.jobs'::regclass, oid FROM pg_catalog.pg_roles WHERE rolname = current_user")
                    try connection.execute("UPDATE ferry.jobs SET state = 'succeeded'")
                }
            } throws: { error in
                (error as? PostgresError)?.sqlState == "FY011"
            }
            // position, tx_id and recorded_at are the database's.
            for column in ["recorded_at", "tx_id"] {
                let value = column == "recorded_at" ? "'2000-01-01'::timestamptz" : "'1'::xid8"
                await #expect("\(login): forged \(column)") {
                    _ = try await logins.run(
                        login,
                        "INSERT INTO ferry.events (job_id, version, type, data, \(column)) VALUES ($1::uuid, 2, 'cancelled', '{}', \(value))",
                        [job])
                } throws: { error in
                    (error as? PostgresError)?.sqlState == .insufficientPrivilege
                }
            }
        }
        let after = try await Self.snapshot(logins.db, job)
        #expect(after.events == before.events && after.row == before.row)

        // Account history: workers record token refreshes and re-authorizations, nothing else; producers nothing.
        try await logins.db.query("INSERT INTO ferry.accounts (name, provider) VALUES ('acct', 'dropbox')")
        _ = try await logins.run(.worker, "INSERT INTO ferry.account_events (account, type) VALUES ('acct', 'token_refreshed')")
        for (login, type) in [(Login.worker, "added"), (.worker, "revoked"), (.producer, "token_refreshed")] {
            await #expect("\(login) appends account event \(type)") {
                _ = try await logins.run(login, "INSERT INTO ferry.account_events (account, type) VALUES ('acct', $1)", [type])
            } throws: { error in
                (error as? PostgresError)?.sqlState == .insufficientPrivilege
            }
        }
        let history = try await logins.db.query("SELECT count(*) FROM ferry.account_events").rows[0].decode(Int.self, at: 0)
        #expect(history == 1)
    }

    @Test("privileges follow current_user: SET ROLE to a narrower role narrows what may be appended")
    func setRoleNarrows() async throws {
        let logins = try await Logins.make("lpsetrole")
        let owner = logins.db.store()
        defer { owner.client.close() }
        let job = try await owner.enqueue([StoreFixtures.fetchSpec()])[0].jobID
        let both = "lp_both_\(UInt32.random(in: 0...UInt32.max))"
        try await logins.db.query("CREATE ROLE \(both) LOGIN IN ROLE ferry_producer, ferry_worker")
        let client = PostgresClient(configuration: PostgresConfiguration(
            connectionString: logins.db.url.replacingOccurrences(of: "postgres@", with: "\(both)@"), poolSize: 1))
        defer { client.close() }
        await #expect {
            try await client.withConnection { connection in
                try connection.execute("SET ROLE ferry_producer")
                defer { _ = try? connection.execute("RESET ROLE") }  // the pooled connection goes back as it came
                _ = try connection.query(Self.append, [job, 2, "claimed", #"{"lease": 1, "worker": "w"}"#])
            }
        } throws: { error in
            let error = error as? PostgresError
            return error?.sqlState == .insufficientPrivilege && error?.serverMessage?.contains("\"ferry_producer\"") == true
        }
        // The same login, as itself, holds both roles and may claim.
        _ = try await client.withConnection { try $0.query(Self.append, [job, 2, "claimed", #"{"lease": 1, "worker": "w"}"#]) }
        #expect(try await owner.reads.jobStatus(.job(job))[0].state == "running")
    }
}
