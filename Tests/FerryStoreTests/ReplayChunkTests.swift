import FerryTestSupport
import Foundation
import Postgres
import Testing

@testable import FerryStore

@Suite("replay chunks", .tags(.postgres))
struct ReplayChunkTests {
    @Test("a chunk of the whole log holds about chunkEvents / 4 jobs however few events each has, and every job once")
    func chunksAreSizedByJobs() async throws {
        let db = try await TestDatabase.make("chunks")
        let store = db.store()
        defer { store.client.close() }
        _ = try await store.enqueue((0..<200).map { _ in StoreFixtures.fetchSpec() })  // one event each
        let (largest, jobs, chunks) = try await store.client.withTransaction(isolation: .repeatableRead) { connection in
            var replay = ProjectionReplay(connection: connection, chunkEvents: 40)
            var largest = 0
            var jobs = 0
            var chunks = 0
            try replay.forEachChunk(.all) { replay, _ in
                largest = max(largest, replay.jobs.count)
                jobs += replay.jobs.count
                chunks += 1
            }
            return (largest, jobs, chunks)
        }
        #expect(jobs == 200)
        // 40 events are 40 jobs at one event each: a chunk aims at 40 / 4 jobs instead (its folded rows cost memory).
        #expect(largest <= 10, "a chunk held \(largest) jobs")
        #expect(chunks >= 20)
        #expect(try await store.projection.verify(chunkEvents: 40).isClean)
    }
}
