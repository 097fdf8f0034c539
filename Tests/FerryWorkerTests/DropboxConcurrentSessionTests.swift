import FerryCore
import FerryDevServer
import FerryTestSupport
import Foundation
import Postgres
import Testing

/// Large Dropbox uploads in `session_type: concurrent` upload sessions, several chunks of one file in flight at
/// once, in process (`InProcessFleet`). A worker killed mid-session is in `DropboxConcurrentSessionProcessTests`.
@Suite("Dropbox concurrent upload sessions", .tags(.postgres), .serialized)
struct DropboxConcurrentSessionTests {
    static let chunk = 4 * 1024 * 1024

    @Test("a 10-chunk file goes up in one concurrent session, several chunks at once, at multiples of 4 MiB, and arrives exact")
    func parallelChunks() async throws {
        // Bodies read at 16 MiB/s each: chunks stay in flight long enough to overlap.
        try await InProcessFleet.run("dbx_concurrent", configure: { $0.faults = FaultConfiguration(uploadBytesPerSecond: 16 << 20) }) { fleet in
            try await Self.parallelChunks(fleet)
        }
    }

    static func parallelChunks(_ fleet: InProcessFleet) async throws {
        let server = fleet.server, db = fleet.db
        try await fleet.addDropbox("wide")
        let dir = try temporaryFolder("concurrent")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let size = 9 * Self.chunk + 12_345
        try DropboxAccounts.randomFile(dir + "/wide.bin", size: size)
        try await fleet.enqueue([DropboxUploadTests.upload(dir + "/wide.bin", to: "dropbox:wide:/wide.bin")])

        let worker = try fleet.uploadWorker("wide", chunkMiB: 4)
        try await fleet.running([worker]) {
            try await eventually(timeout: .seconds(300), "the upload to finish") {
                try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 1
            }
        }

        #expect(try DropboxAccounts.sha256(server.storedFile(account: "wide", path: "/wide.bin")) == DropboxAccounts.sha256(dir + "/wide.bin"))
        let stats = try await server.stats()
        #expect(stats["sessions_started"]?.intValue == 1)
        #expect((stats["concurrent_appends_peak"]?.intValue ?? 0) > 1, "chunks overlapped")
        #expect((stats["concurrent_appends_peak"]?.intValue ?? 0) <= 4, "at most four at once")
        guard case .object(let sessions)? = stats["append_offsets_per_session"], let offsets = sessions.values.first?.arrayValue else {
            Issue.record("no appends recorded")
            return
        }
        #expect(Set(offsets.compactMap(\.intValue)) == Set((0..<10).map { Int64($0 * Self.chunk) }), "each chunk once, at its multiple of 4 MiB")
        #expect(stats["bytes_received"]?.intValue == Int64(size), "nothing sent twice")
        #expect(stats["finish_batch_entries"]?.arrayValue?.count == 1, "committed through the batcher")
        let recorded = try await count(
            db, "SELECT count(*) FROM ferry.events WHERE type = 'progress' AND (data->'session'->>'concurrent')::boolean")
        #expect(recorded >= 10, "each accepted chunk recorded")
    }
}
