import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

@Suite("event store", .tags(.postgres))
struct EventStoreTests {
    @Test("events are append-only for the owner: UPDATE, DELETE and TRUNCATE raise")
    func appendOnlyForOwner() async throws {
        let db = try await TestDatabase.make("appendonly")
        let store = db.store()
        defer { store.client.close() }
        _ = try await store.enqueue([StoreFixtures.fetchSpec()])
        for statement in ["UPDATE ferry.events SET data = '{}'", "DELETE FROM ferry.events", "TRUNCATE ferry.events"] {
            await #expect {
                try await db.query(statement)
            } throws: { error in
                (error as? PostgresError)?.sqlState == "FY010"
            }
        }
        let count = try await db.query("SELECT count(*) FROM ferry.events").rows[0].decode(Int.self, at: 0)
        #expect(count == 1)
    }

    @Test("application roles can append and lock, but never change events or write the projection")
    func rolesAreLeastPrivilege() async throws {
        let db = try await TestDatabase.make("roles")
        let suffix = UInt32.random(in: 0...UInt32.max)
        try await db.query("CREATE ROLE w_\(suffix) LOGIN IN ROLE ferry_worker")
        try await db.query("CREATE ROLE p_\(suffix) LOGIN IN ROLE ferry_producer")
        try await db.query("CREATE ROLE r_\(suffix) LOGIN IN ROLE ferry_reader")
        func client(_ role: String) -> PostgresClient {
            PostgresClient(configuration: PostgresConfiguration(connectionString: db.url.replacingOccurrences(of: "postgres@", with: "\(role)@"), poolSize: 1))
        }
        let producer = FerryStore(client: client("p_\(suffix)"), logger: .init(label: "p"))
        let worker = FerryStore(client: client("w_\(suffix)"), logger: .init(label: "w"))
        let reader = client("r_\(suffix)")
        defer {
            producer.client.close()
            worker.client.close()
            reader.close()
        }
        // The whole life of a job works with least privilege.
        let ids = try await producer.enqueue([StoreFixtures.fetchSpec(), StoreFixtures.fetchSpec()])
        let claimed = try await worker.claim(worker: "w1", queues: ["default"], limit: 1)
        #expect(claimed.count == 1)
        let result = try await worker.record([.succeeded(claimed[0], bytes: 1000)])
        #expect(result.accepted == [claimed[0].jobID])
        let unclaimed = ids.map(\.jobID).first { $0 != claimed[0].jobID }!
        let cancelled = try await producer.cancel(.job(unclaimed), requestedBy: "test")
        #expect(cancelled.first?.action == .cancelled)

        for role in [producer.client, worker.client] {
            for statement in ["UPDATE ferry.events SET data = '{}'", "DELETE FROM ferry.events", "TRUNCATE ferry.events"] {
                await #expect {
                    try await role.withConnection { try $0.query(statement) }
                } throws: { error in
                    (error as? PostgresError)?.sqlState == .insufficientPrivilege
                }
            }
            await #expect {
                try await role.withConnection { try $0.query("UPDATE ferry.jobs SET bytes_done = 1") }
            } throws: { error in
                (error as? PostgresError)?.sqlState == "FY011"
            }
            await #expect {
                try await role.withConnection { try $0.query("DELETE FROM ferry.jobs") }
            } throws: { error in
                (error as? PostgresError)?.sqlState == .insufficientPrivilege
            }
        }
        // Readers see the views and nothing else.
        let visible = try await reader.withConnection { try $0.query("SELECT count(*) FROM ferry.job_status").rows[0].decode(Int.self, at: 0) }
        #expect(visible == 2)
        await #expect {
            try await reader.withConnection { try $0.query("SELECT count(*) FROM ferry.events") }
        } throws: { error in
            (error as? PostgresError)?.sqlState == .insufficientPrivilege
        }
    }

    @Test("concurrent appends with the same expected version: exactly one wins")
    func optimisticConcurrency() async throws {
        let db = try await TestDatabase.make("occ")
        let store = db.store(poolSize: 8)
        defer { store.client.close() }
        let job = try await store.enqueue([StoreFixtures.fetchSpec()])[0].jobID
        _ = try await store.claim(worker: "w", queues: ["default"], limit: 1)
        // Version 2 now (enqueued, claimed). Sixteen writers all expect version 2.
        let results = await withTaskGroup(of: Result<Int, any Error>.self) { group in
            for index in 0..<16 {
                group.addTask {
                    do {
                        return .success(
                            try await store.append(
                                jobID: job, expectedVersion: 2, type: .progress,
                                data: .object(["lease": .int(1), "bytes_done": .int(Int64(index))])))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            var results = [Result<Int, any Error>]()
            for await result in group { results.append(result) }
            return results
        }
        let winners = results.filter { if case .success = $0 { true } else { false } }
        #expect(winners.count == 1)
        for case .failure(let error) in results {
            #expect((error as? FerryStoreError)?.code == .versionConflict)
        }
        let versions = try await store.reads.events(of: job).map(\.version)
        #expect(versions == [1, 2, 3])
    }

    @Test("an event from a lost claim is rejected by the database (fencing by lease)")
    func fencing() async throws {
        let db = try await TestDatabase.make("fence")
        let store = db.store()
        defer { store.client.close() }
        let job = try await store.enqueue([StoreFixtures.fetchSpec()])[0].jobID
        let first = try await store.claim(worker: "zombie", queues: ["default"], limit: 1)[0]
        // The claim is lost (rescued) and another worker claims the job again.
        try await db.query(
            "INSERT INTO ferry.events (job_id, version, type, data) VALUES ($1::uuid, 3, 'rescued', '{\"lease\": 1, \"reason\": \"heartbeat lost\"}')",
            [job])
        let second = try await store.claim(worker: "alive", queues: ["default"], limit: 1)[0]
        #expect(second.lease == first.lease + 1)
        #expect(second.attempt == 2)
        // The zombie wakes up and reports success: refused, the newer attempt is untouched.
        let zombie = try await store.record([.succeeded(first)])
        #expect(zombie.rejected == [job])
        await #expect {
            try await store.append(jobID: job, expectedVersion: 4, type: .succeeded, data: .object(["lease": .int(first.lease)]))
        } throws: { error in
            (error as? FerryStoreError)?.code == .staleLease
        }
        let status = try await store.reads.jobStatus(.job(job))[0]
        #expect(status.state == "running" && status.worker == "alive")
        let alive = try await store.record([.succeeded(second)])
        #expect(alive.accepted == [job])
    }

    @Test("the database accepts exactly the transitions the Swift fold (JobFold) allows, from every state")
    func sqlAgreesWithSwiftFold() async throws {
        let db = try await TestDatabase.make("grammar")
        let store = db.store()
        defer { store.client.close() }
        // Reach each state, then try every event type against it in a transaction that is rolled back.
        let paths: [(JobState, [(JobEventType, String)])] = [
            (.queued, []),
            (.running, [(.claimed, #"{"lease":1,"worker":"w"}"#)]),
            (.succeeded, [(.claimed, #"{"lease":1,"worker":"w"}"#), (.succeeded, #"{"lease":1}"#)]),
            (.failed, [(.claimed, #"{"lease":1,"worker":"w"}"#), (.failed, #"{"lease":1,"error":"x"}"#)]),
            (.cancelled, [(.cancelled, "{}")]),
            (.discarded, [(.claimed, #"{"lease":1,"worker":"w"}"#), (.failed, #"{"lease":1,"error":"x"}"#), (.discarded, "{}")]),
        ]
        let payloads: [JobEventType: String] = [
            .claimed: #"{"lease":%NEXT%,"worker":"w2"}"#, .progress: #"{"lease":%LEASE%,"bytes_done":5}"#,
            .retryScheduled: #"{"lease":%LEASE%,"error":"e","run_at":"2030-01-01T00:00:00Z"}"#,
            .deferred: #"{"lease":%LEASE%,"reason":"429","run_at":"2030-01-01T00:00:00Z"}"#,
            .released: #"{"lease":%LEASE%}"#, .rescued: #"{"lease":%LEASE%,"reason":"r"}"#,
            .cancelRequested: "{}", .cancelled: #"{"lease":%LEASE%}"#, .succeeded: #"{"lease":%LEASE%}"#,
            .failed: #"{"lease":%LEASE%,"error":"e"}"#, .requeued: "{}", .enqueued: "{}", .discarded: #"{"by":"t"}"#,
            .resolved: #"{"lease":%LEASE%,"source":"https://example.com/r","spec":{"x":1},"bytes_total":7}"#,
        ]
        for (state, path) in paths {
            let job = try await store.enqueue([StoreFixtures.fetchSpec()])[0].jobID
            for (index, step) in path.enumerated() {
                try await store.append(jobID: job, expectedVersion: index + 1, type: step.0, data: try JSONValue.parse(step.1))
            }
            let lease = path.isEmpty || path.first?.0 == .cancelled ? 0 : 1
            for event in JobEventType.allCases {
                let data = payloads[event]!.replacingOccurrences(of: "%LEASE%", with: "\(lease)")
                    .replacingOccurrences(of: "%NEXT%", with: "\(lease + 1)")
                let accepted: Bool
                do {
                    try await store.client.withConnection { connection in
                        try connection.execute("BEGIN")
                        defer { try? connection.execute("ROLLBACK") }
                        try connection.query(
                            "INSERT INTO ferry.events (job_id, version, type, data) VALUES ($1::uuid, $2, $3, $4::jsonb)",
                            [job, event == .enqueued ? 1 : path.count + 2, event.rawValue, data])
                    }
                    accepted = true
                } catch {
                    accepted = false
                }
                // The Swift fold (JobFold) on the job's stored history plus this event decides alike.
                let history = try await db.query(
                    "SELECT version, type, data::text, recorded_at::text FROM ferry.events WHERE job_id = $1::uuid ORDER BY version", [job]
                ).rows.map { row in
                    CandidateEvent(jobID: job, version: try row.decode(Int.self, at: 0), type: try row.decode(String.self, at: 1),
                                   data: try row.decode(String.self, at: 2), recordedAt: try row.decode(String.self, at: 3))
                }
                let probe = CandidateEvent(jobID: job, version: event == .enqueued ? 1 : path.count + 2, type: event.rawValue,
                                           data: data, recordedAt: "2030-01-01T00:00:00Z")
                let folded = try await FoldHarness.run(history + [probe], db: db, append: false)
                #expect(folded.swiftCodes.dropLast().allSatisfy { $0 == nil })
                #expect(accepted == (folded.swiftCodes.last! == nil), "\(state) + \(event)")
            }
        }
    }
}
