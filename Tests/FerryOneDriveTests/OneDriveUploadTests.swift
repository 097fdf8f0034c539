import FerryCore
import FerryDevServer
import FerryOneDrive
import FerryStore
import FerryTestSupport
import FerryTesting
import Foundation
import Testing

@testable import FerryWorker

/// OneDrive uploads through real workers: simple uploads and sessions, modes as conflictBehavior, a worker stopped
/// mid-session resumed by another from the recorded session URL, expired sessions, throttling and a revoked login.
@Suite(.serialized, .tags(.postgres))
struct OneDriveUploadTests {
    @Test("a small file goes up in one PUT, a larger one in a session of 320 KiB ranges; bytes and quickXorHash kept")
    func smallAndSession() async throws {
        try await OneDriveWorkerFixture.run("upload") { f in
            let small = OneDriveWorkerFixture.bytes(300 * 1024, seed: 1)
            let large = OneDriveWorkerFixture.bytes(3 * 320 * 1024 + 777, seed: 2)
            let done = try await f.run([
                try f.spec(.upload, source: try f.file("small.bin", small), to: "onedrive:od:/Backup/2025/"),
                try f.spec(.upload, source: try f.file("large.bin", large), to: "onedrive:od:/Backup/2025/"),
            ])
            #expect(done.allSatisfy { $0.state == .succeeded }, "\(done.map { $0.lastError ?? "" })")
            #expect(f.server.oneDriveFile(account: "od", path: "/Backup/2025/small.bin") == small)
            #expect(f.server.oneDriveFile(account: "od", path: "/Backup/2025/large.bin") == large)
            let stats = f.server.oneDriveStats()
            #expect(stats.simpleUploads == 1 && stats.sessionsCreated == 1 && stats.sessionsCompleted == 1)
            #expect(done.first { $0.source.hasSuffix("large.bin") }?.result?["quick_xor"] == .string(QuickXorHash.hash(large)))
            let item = try #require(f.items().first { $0.path == "/Backup/2025/large.bin" })
            #expect(item.json["fileSystemInfo"]?["lastModifiedDateTime"] == .string("2023-11-14T22:13:20Z"), "the file's time kept")
        }
    }

    @Test("mode add: the same content is done, other content fails naming the modes; overwrite replaces the item; rename keeps both")
    func modes() async throws {
        try await OneDriveWorkerFixture.run("modes") { f in
            func upload(_ bytes: [UInt8], _ options: [String: OptionValue] = [:]) async throws -> MemoryJob {
                try await f.run([try f.spec(.upload, source: try f.file("notes.txt", bytes), to: "onedrive:od:/Notes/", options: options)])[0]
            }
            #expect(try await upload(Array("first".utf8)).state == .succeeded)
            let same = try await upload(Array("first".utf8))
            #expect(same.state == .succeeded && same.result?["skipped"] == .string("unchanged"))
            let other = try await upload(Array("second".utf8))
            #expect(other.state == .failed && other.lastError?.contains("destination_exists") == true && other.lastError?.contains("mode=overwrite") == true)
            let id = f.items().first { $0.path == "/Notes/notes.txt" }?.json["id"]
            #expect(try await upload(Array("second".utf8), ["mode": .commandLine("overwrite")]).state == .succeeded)
            #expect(f.server.oneDriveFile(account: "od", path: "/Notes/notes.txt") == Array("second".utf8))
            #expect(f.items().first { $0.path == "/Notes/notes.txt" }?.json["id"] == id, "the same item, a new version")
            #expect(try await upload(Array("third".utf8), ["mode": .commandLine("rename")]).state == .succeeded)
            #expect(f.server.oneDriveFile(account: "od", path: "/Notes/notes 1.txt") == Array("third".utf8))
            let skipped = try await upload(Array("third".utf8), ["existing": .commandLine("ignore")])
            #expect(skipped.result?["skipped"] == .string("exists"))
        }
    }

    @Test("a worker stopped mid-session leaves the session URL recorded; another worker asks it for nextExpectedRanges and resumes: one session, at most the range in flight sent twice")
    func resumeRecordedSession() async throws {
        try await OneDriveWorkerFixture.run("resume") { f in
            let unit = 320 * 1024
            let data = OneDriveWorkerFixture.bytes(8 * unit + 99, seed: 42)
            var spec = try f.spec(.upload, source: try f.file("video.mov", data), to: "onedrive:od:/Videos/")
            spec.maxAttempts = 3
            // Slow enough to stop the first worker between ranges.
            f.server.updateFaults(FaultConfiguration(uploadBytesPerSecond: 1024 * 1024))
            let first = try f.worker()
            let id = f.jobs.enqueue(spec).jobID
            try await first.waitUntil(timeout: .seconds(300), "two ranges recorded") { store in
                (store.job(id)?.session?["offset"]?.intValue ?? 0) >= Int64(2 * unit)
            }
            try await first.stop()
            let url = try #require(f.jobs.job(id)?.session?["onedrive_session"]?.stringValue)
            #expect(f.jobs.job(id)?.state.isTerminal == false)

            f.server.updateFaults(.none)
            let second = try f.worker()
            let done = try await second.settle([id], timeout: .seconds(300))
            try await second.stop()
            #expect(done[0].state == .succeeded, "\(done[0].lastError ?? "")")
            #expect(f.server.oneDriveFile(account: "od", path: "/Videos/video.mov") == data)
            let stats = f.server.oneDriveStats()
            #expect(stats.sessionsCreated == 1 && stats.sessionsCompleted == 1, "the same session, resumed")
            #expect(stats.statusQueries >= 1)
            let sessionID = String(url.split(separator: "/").last ?? "")
            let starts = stats.rangeStartsPerSession[sessionID] ?? []
            #expect(starts.first == 0 && Set(starts).count >= starts.count - 1, "at most the range in flight sent twice: \(starts)")
            #expect(stats.bytesReceived <= Int64(data.count + unit))
            #expect(stats.filesCreatedPerName["video.mov"] == 1)
        }
    }

    @Test("a recorded session that expired is replaced by a new one from byte 0; still one file")
    func expiredSession() async throws {
        try await OneDriveWorkerFixture.run("expired") { f in
            let data = OneDriveWorkerFixture.bytes(4 * 320 * 1024 + 5, seed: 7)
            f.server.updateFaults(FaultConfiguration(uploadBytesPerSecond: 1024 * 1024))
            let first = try f.worker()
            let id = f.jobs.enqueue(try f.spec(.upload, source: try f.file("e.bin", data), to: "onedrive:od:/")).jobID
            try await first.waitUntil(timeout: .seconds(300), "a range recorded") { ($0.job(id)?.session?["offset"]?.intValue ?? 0) > 0 }
            try await first.stop()
            #expect(f.server.expireOneDriveSessions() == 1)
            f.server.updateFaults(.none)
            let second = try f.worker()
            let done = try await second.settle([id], timeout: .seconds(300))
            try await second.stop()
            #expect(done[0].state == .succeeded, "\(done[0].lastError ?? "")")
            #expect(f.server.oneDriveFile(account: "od", path: "/e.bin") == data)
            let stats = f.server.oneDriveStats()
            // The expired session and at least one new one (on a loaded machine the stopped worker's attempt may still
            // be winding down and make one of its own); never a second file.
            #expect(stats.sessionsCreated >= 2 && stats.sessionsCompleted >= 1, "\(stats.sessionsCreated) sessions, \(stats.sessionsCompleted) completed")
            #expect(stats.filesCreatedPerName["e.bin"] == 1, "still one file")
        }
    }

    @Test("each refresh stores the rotated refresh token, sealed: the account keeps working after the first one is revoked, and no token is in the account's events")
    func rotatedRefreshToken() async throws {
        try await OneDriveWorkerFixture.run("rotation") { f in
            func sealedRefreshToken() async throws -> String {
                try await f.database.query("SELECT encode(refresh_token_sealed, 'hex') FROM ferry.accounts WHERE name = 'od'").rows[0]
                    .decode(String.self, at: 0)
            }
            func forceRefresh() async throws {
                f.tokens.forget("od")
                _ = try await f.database.query("UPDATE ferry.accounts SET access_token_expires_at = now() - interval '1 hour' WHERE name = 'od'")
            }
            let before = try await sealedRefreshToken()
            try await forceRefresh()
            let worker = try f.worker()
            let first = f.jobs.enqueue(try f.spec(.upload, source: try f.file("r1.txt", [1]), to: "onedrive:od:/")).jobID
            #expect(try await worker.settle([first], timeout: .seconds(300))[0].state == .succeeded)
            let rotated = try await sealedRefreshToken()
            #expect(rotated != before, "the refresh token Microsoft sent with the grant replaced the stored one")
            let stored = try await f.store.accounts.credentials(for: "od", box: f.box).refreshToken
            #expect(stored != nil && stored != f.refreshToken)

            // The first refresh token lapses (Microsoft: 90 days after it was issued); the stored one carries on.
            f.server.revokeOneDriveRefreshToken(f.refreshToken)
            try await forceRefresh()
            let second = f.jobs.enqueue(try f.spec(.upload, source: try f.file("r2.txt", [2]), to: "onedrive:od:/")).jobID
            let done = try await worker.settle([second], timeout: .seconds(300))
            try await worker.stop()
            #expect(done[0].state == .succeeded, "\(done[0].lastError ?? "")")
            let status = try await f.database.query("SELECT status FROM ferry.accounts WHERE name = 'od'").rows[0].decode(String.self, at: 0)
            #expect(status == "active")
            let events = try await f.database.query(
                "SELECT data::text FROM ferry.account_events WHERE account = 'od' AND type = 'token_refreshed' ORDER BY position"
            ).rows.map { try $0.decode(String.self, at: 0) }
            #expect(events.count >= 2 && events.allSatisfy { $0.contains("\"refresh_token_rotated\": true") })
            #expect(events.allSatisfy { !$0.contains(f.refreshToken) && !$0.contains(stored ?? "-") })
        }
    }

    @Test("429 and 503 with Retry-After defer the job without using an attempt; a revoked refresh token holds it")
    func throttlingAndHeld() async throws {
        try await OneDriveWorkerFixture.run("limits") { f in
            f.server.throttleOneDrive(count: 2, status: 429, retryAfter: 1)
            let worker = try f.worker()
            let id = f.jobs.enqueue(try f.spec(.upload, source: try f.file("a.txt", Array("a".utf8)), to: "onedrive:od:/")).jobID
            let done = try await worker.settle([id], timeout: .seconds(300))
            #expect(done[0].state == .succeeded, "\(done[0].lastError ?? "")")
            #expect(done[0].events.contains(.deferred), "throttled, then deferred")
            #expect(!done[0].events.contains(.retryScheduled), "throttling is no failed attempt")
            f.server.throttleOneDrive(count: 1, status: 503, retryAfter: 1)
            let second = f.jobs.enqueue(try f.spec(.upload, source: try f.file("b.txt", Array("b".utf8)), to: "onedrive:od:/")).jobID
            let after503 = try await worker.settle([second], timeout: .seconds(300))
            #expect(after503[0].state == .succeeded && after503[0].events.contains(.deferred) && !after503[0].events.contains(.retryScheduled))
            try await worker.stop()
            #expect(f.server.oneDriveStats().throttled == 3)

            // The app's access is revoked (every refresh token of the user, the rotated ones the account stored too):
            // the next refresh is invalid_grant, and the job is held, not failed.
            f.server.revokeOneDriveRefreshTokens(account: "od")
            f.tokens.forget("od")
            _ = try await f.database.query("UPDATE ferry.accounts SET access_token_expires_at = now() - interval '1 hour' WHERE name = 'od'")
            let held = try f.worker()
            let third = f.jobs.enqueue(try f.spec(.upload, source: try f.file("c.txt", [1]), to: "onedrive:od:/")).jobID
            try await held.waitUntil(timeout: .seconds(300), "the job held") { $0.job(third)?.events.contains(.released) == true }
            f.jobs.setAccount(MemoryAccount(name: "od", provider: "onedrive", status: "needs_reauth"))
            try await held.stop()
            #expect(f.jobs.job(third)?.state.isTerminal == false, "held, not failed")
            let status = try await f.database.query("SELECT status FROM ferry.accounts WHERE name = 'od'").rows.first?.decode(String.self, at: 0)
            #expect(status == "needs_reauth")
        }
    }
}
