import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

/// Migration 0025: a claim belongs to the login that registered its worker. Another `ferry_worker` login cannot
/// finish, fail, release or report progress for it, cannot take it with a zero-interval rescue while the holder
/// heartbeats, and cannot rewrite or remove the holder's registration.
@Suite("claims are bound to the worker's login", .tags(.postgres))
struct ClaimBindingTests {
    static func refusal(_ client: PostgresClient, _ sql: String, _ binds: [any PostgresBindable] = []) async -> PostgresError? {
        do {
            _ = try await Self.query(client, sql, binds)
            return nil
        } catch let error as PostgresError {
            return error
        } catch {
            return nil
        }
    }

    static func version(_ db: TestDatabase, _ job: UUID) async throws -> Int32 {
        try await db.query("SELECT version FROM ferry.jobs WHERE job_id = $1", [job]).rows[0].decode(Int32.self, at: 0)
    }

    static func state(_ db: TestDatabase, _ job: UUID) async throws -> String {
        try await db.query("SELECT state FROM ferry.jobs WHERE job_id = $1", [job]).rows[0].decode(String.self, at: 0)
    }

    @discardableResult
    static func query(_ client: PostgresClient, _ sql: String, _ binds: [any PostgresBindable] = []) async throws -> PostgresQueryResult {
        try await client.withConnection { try $0.query(sql, binds) }
    }

    static let append = "INSERT INTO ferry.events (job_id, version, type, data) VALUES ($1, $2, $3, $4::jsonb)"

    @Test("another worker login cannot append under a live claim, rescue it early, claim for its worker or touch its registration; the holder can")
    func boundToLogin() async throws {
        let logins = try await LeastPrivilegeTests.Logins.make("claim_binding")
        let db = logins.db
        let other = "lp_otherworker_\(UInt32.random(in: 0...UInt32.max))"
        try await db.query("CREATE ROLE \(other) LOGIN IN ROLE ferry_worker")
        let holder = PostgresClient(configuration: PostgresConfiguration(connectionString: logins.url(.worker), poolSize: 1))
        let thief = PostgresClient(configuration: PostgresConfiguration(
            connectionString: db.url.replacingOccurrences(of: "postgres@", with: "\(other)@"), poolSize: 1))
        defer {
            holder.close()
            thief.close()
        }
        let register = """
            INSERT INTO ferry.workers (name, queues, concurrency, host, pid) VALUES ($1, '{default}', 1, 'h', 1)
            ON CONFLICT (name) DO UPDATE SET heartbeat_at = now()
            """
        _ = try await Self.query(holder, register, ["w-holder"])
        _ = try await Self.query(thief, register, ["w-thief"])
        let login = try await db.query("SELECT login::text FROM ferry.workers WHERE name = 'w-holder'").rows[0].decode(String.self, at: 0)
        #expect(login == logins.names[.worker])

        let job = try await db.query("SELECT ferry.enqueue('fetch', 'https://example.com/a.jpg', '/srv/in/')").rows[0].decode(UUID.self, at: 0)
        let claimed = try await Self.query(holder, "SELECT job_id FROM ferry.claim_jobs('w-holder', '{default}', 1)").rows
        #expect(claimed.count == 1)
        let version = try await Self.version(db, job)
        // The holder is alive: its heartbeat is set an hour ahead before each attempt of the thief, so however slow
        // the machine, no attempt falls after the 3 s that would let another login rescue a silent holder's claim.
        let beat = {
            _ = try await Self.query(holder, "UPDATE ferry.workers SET heartbeat_at = now() + interval '1 hour' WHERE name = 'w-holder'")
        }

        // The attack: the thief appends the holder's outcome with the current lease.
        for (type, data) in [("succeeded", #"{"lease": 1}"#), ("progress", #"{"lease": 1, "bytes_done": 5}"#), ("failed", #"{"lease": 1, "error": "x"}"#), ("released", #"{"lease": 1, "reason": "x"}"#)] {
            try await beat()
            let refused = await Self.refusal(thief, Self.append, [job, version + 1, type, data])
            #expect(refused?.sqlState == .insufficientPrivilege, "\(type): \(String(describing: refused))")
            #expect(refused?.serverMessage?.contains("w-holder") == true)
        }
        // A zero-interval rescue does not take a live worker's job.
        try await beat()
        // (A negative interval makes even the holder's heartbeat an hour ahead look stale to the function; the
        // database's own floor, 3 s of silence, still refuses.)
        let rescue = await Self.refusal(thief, "SELECT * FROM ferry.rescue_stale_jobs('-2 hours')")
        #expect(rescue?.sqlState == .insufficientPrivilege, "\(String(describing: rescue))")
        // The registration is the holder's: not refreshed, aged, removed or re-registered by the thief.
        for sql in [
            "UPDATE ferry.workers SET heartbeat_at = now() - interval '1 hour' WHERE name = 'w-holder'",
            "DELETE FROM ferry.workers WHERE name = 'w-holder'",
        ] {
            try await beat()
            let refused = await Self.refusal(thief, sql)
            #expect(refused?.sqlState == .insufficientPrivilege, "\(sql): \(String(describing: refused))")
        }
        try await beat()
        let reregister = await Self.refusal(thief, register, ["w-holder"])
        #expect(reregister?.sqlState == .insufficientPrivilege)
        // Nor claim new work in the holder's name.
        _ = try await db.query("SELECT ferry.enqueue('fetch', 'https://example.com/b.jpg', '/srv/in/')")
        try await beat()
        let foreignClaim = await Self.refusal(thief, "SELECT * FROM ferry.claim_jobs('w-holder', '{default}', 1)")
        #expect(foreignClaim?.sqlState == .insufficientPrivilege, "\(String(describing: foreignClaim))")

        #expect(try await Self.state(db, job) == "running")
        _ = try await Self.query(holder, Self.append, [job, version + 1, "succeeded", #"{"lease": 1}"#])
        #expect(try await Self.state(db, job) == "succeeded")
    }

    @Test("a claim whose holder stopped heartbeating is rescued by another login, as before")
    func staleHolderRescued() async throws {
        let logins = try await LeastPrivilegeTests.Logins.make("claim_binding_stale")
        let db = logins.db
        let other = "lp_rescuer_\(UInt32.random(in: 0...UInt32.max))"
        try await db.query("CREATE ROLE \(other) LOGIN IN ROLE ferry_worker")
        let holder = PostgresClient(configuration: PostgresConfiguration(connectionString: logins.url(.worker), poolSize: 1))
        let rescuer = PostgresClient(configuration: PostgresConfiguration(
            connectionString: db.url.replacingOccurrences(of: "postgres@", with: "\(other)@"), poolSize: 1))
        defer {
            holder.close()
            rescuer.close()
        }
        _ = try await Self.query(holder, 
            "INSERT INTO ferry.workers (name, queues, concurrency, host, pid) VALUES ('w-gone', '{default}', 1, 'h', 1)")
        let job = try await db.query("SELECT ferry.enqueue('fetch', 'https://example.com/a.jpg', '/srv/in/')").rows[0].decode(UUID.self, at: 0)
        _ = try await Self.query(holder, "SELECT job_id FROM ferry.claim_jobs('w-gone', '{default}', 1)")
        // The holder died 20 seconds ago.
        try await db.query("UPDATE ferry.workers SET heartbeat_at = now() - interval '20 seconds' WHERE name = 'w-gone'")
        let rescued = try await Self.query(rescuer, "SELECT job_id FROM ferry.rescue_stale_jobs('15 seconds')").rows
        #expect(rescued.count == 1)
        #expect(try await Self.state(db, job) == "queued")
    }
}
