import Crypto
import FerryCore
import FerryDevServer
import FerryTestSupport
import FerryTesting
import Foundation
import Testing

@testable import FerryWorker

/// The Google Drive upload handler in process against the dev server's Drive emulation.
@Suite("Google Drive uploads", .tags(.postgres), .serialized)
struct GoogleDriveUploadTests {
    static func md5(_ bytes: [UInt8]) -> String { Insecure.MD5.hash(data: bytes).map { String(format: "%02x", $0) }.joined() }

    @Test("a tree of small files goes up in multipart requests; each new folder is created once; modifiedTime and MD5 kept")
    func smallFilesIntoNewFolders() async throws {
        try await GoogleDriveWorkerFixture.run("small") { f in
            var specs: [JobSpec] = []
            for index in 0..<12 {
                let path = try f.file("src/IMG_\(index).jpg", GoogleDriveWorkerFixture.bytes(10_000 + index, seed: UInt64(index + 1)))
                specs.append(try f.spec(.upload, source: path, to: "gdrive:drive:/Backup/2025/Trip/"))
            }
            let done = try await f.run(specs, kind: .upload, concurrency: 8)
            #expect(done.allSatisfy { $0.state == .succeeded }, "\(done.map { $0.lastError ?? "" })")
            let stats = f.server.googleDriveStats()
            #expect(stats.foldersCreatedPerName == ["Backup": 1, "2025": 1, "Trip": 1], "each folder once")
            #expect(stats.multipartUploads == 12 && stats.sessionsStarted == 0)
            let items = f.items()
            for index in 0..<12 {
                let found = items.filter { $0.path == "/Backup/2025/Trip/IMG_\(index).jpg" }
                #expect(found.count == 1)
                #expect(found.first?.json["md5Checksum"]?.stringValue == Self.md5(GoogleDriveWorkerFixture.bytes(10_000 + index, seed: UInt64(index + 1))))
                #expect(found.first?.json["modifiedTime"]?.stringValue == "2023-11-14T22:13:20.000Z")
            }
            #expect(done.first?.result?["md5"]?.stringValue != nil && done.first?.result?["id"]?.stringValue != nil)
        }
    }

    @Test("mode add: the same content is done, other content fails naming mode overwrite; overwrite stores a new revision of the same id; if_changed skips")
    func modes() async throws {
        try await GoogleDriveWorkerFixture.run("modes") { f in
            let path = try f.file("notes.txt", Array("first".utf8))
            func upload(_ options: [String: OptionValue] = [:]) async throws -> MemoryJob {
                try await f.run([try f.spec(.upload, source: path, to: "gdrive:drive:/Notes/", options: options)], kind: .upload)[0]
            }
            let first = try await upload()
            #expect(first.state == .succeeded)
            let id = try #require(first.result?["id"]?.stringValue)
            let again = try await upload()
            #expect(again.state == .succeeded && again.result?["skipped"] == .string("unchanged"))

            try f.file("notes.txt", Array("second, longer".utf8), modified: 1_700_000_100)
            let refused = try await upload()
            #expect(refused.state == .failed)
            #expect(refused.lastError?.contains("destination_exists") == true && refused.lastError?.contains("mode=overwrite") == true)

            let overwritten = try await upload(["mode": .commandLine("overwrite")])
            #expect(overwritten.state == .succeeded && overwritten.result?["id"]?.stringValue == id, "a new revision of the same file")
            #expect(try f.stored("/Notes/notes.txt") == Array("second, longer".utf8))
            let skipped = try await upload(["mode": .commandLine("overwrite"), "if_changed": .json(.bool(true))])
            #expect(skipped.result?["skipped"] == .string("unchanged"))
            #expect(f.items().filter { $0.path == "/Notes/notes.txt" }.count == 1, "never a second file of the name")
            #expect(f.server.googleDriveStats().revisionsWritten == 1)
        }
    }

    @Test("a large file goes up in a resumable session; a worker stopped mid-upload leaves the session recorded, and another worker asks it where it stands and resumes")
    func resumeRecordedSession() async throws {
        try await GoogleDriveWorkerFixture.run("resume", chunkSize: 256 * 1024) { f in
            let data = GoogleDriveWorkerFixture.bytes(8 * 256 * 1024 + 99, seed: 42)
            let path = try f.file("video.mov", data)
            var spec = try f.spec(.upload, source: path, to: "gdrive:drive:/Videos/")
            spec.maxAttempts = 3
            // Slow enough to stop the first worker between chunks.
            f.server.updateFaults(FaultConfiguration(uploadBytesPerSecond: 1024 * 1024))
            let first = try f.worker(.upload)
            let id = f.jobs.enqueue(spec).jobID
            try await first.waitUntil(timeout: .seconds(300), "two chunks recorded") { store in
                (store.job(id)?.session?["offset"]?.intValue ?? 0) >= 2 * 256 * 1024
            }
            try await first.stop()
            let recorded = try #require(f.jobs.job(id)?.session)
            let uri = try #require(recorded["gdrive_session"]?.stringValue)
            #expect(f.jobs.job(id)?.state.isTerminal == false)

            f.server.updateFaults(.none)
            let second = try f.worker(.upload)
            let done = try await second.settle([id])
            try await second.stop()
            #expect(done[0].state == .succeeded, "\(done[0].lastError ?? "")")
            #expect(try f.stored("/Videos/video.mov") == data)
            let stats = f.server.googleDriveStats()
            #expect(stats.sessionsStarted == 1 && stats.sessionsCompleted == 1, "the same session, resumed")
            #expect(stats.statusQueries >= 1)
            let uploadID = String(uri.split(separator: "upload_id=").last ?? "")
            let starts = stats.chunkStartsPerSession[uploadID] ?? []
            // The chunk in flight when the first worker stopped may be sent again (the session kept none of it); no other.
            #expect(starts.first == 0 && Set(starts).count >= starts.count - 1, "at most the chunk in flight sent twice: \(starts)")
            #expect((stats.bytesReceivedPerSession[uploadID] ?? 0) <= Int64(data.count + 256 * 1024), "re-sent at most one chunk")
            #expect(stats.filesCreatedPerName["video.mov"] == 1)
        }
    }

    @Test("an expired session is replaced by a new one from byte 0; still one file")
    func expiredSession() async throws {
        try await GoogleDriveWorkerFixture.run("expired", chunkSize: 256 * 1024) { f in
            let data = GoogleDriveWorkerFixture.bytes(6 * 256 * 1024, seed: 7)
            let path = try f.file("big.bin", data)
            f.server.updateFaults(FaultConfiguration(uploadBytesPerSecond: 1024 * 1024))
            let first = try f.worker(.upload)
            let id = f.jobs.enqueue(try f.spec(.upload, source: path, to: "gdrive:drive:/"))
            try await first.waitUntil(timeout: .seconds(300), "a chunk recorded") { ($0.job(id.jobID)?.session?["offset"]?.intValue ?? 0) > 0 }
            try await first.stop()
            f.server.expireGoogleDriveSessions()
            f.server.updateFaults(.none)
            let second = try f.worker(.upload)
            let done = try await second.settle([id.jobID])
            try await second.stop()
            #expect(done[0].state == .succeeded, "\(done[0].lastError ?? "")")
            #expect(try f.stored("/big.bin") == data)
            let stats = f.server.googleDriveStats()
            #expect(stats.sessionsStarted == 2 && stats.sessionsExpired == 1 && stats.filesCreatedPerName["big.bin"] == 1)
        }
    }

    @Test("rate limits defer the job without using an attempt; a rejected refresh token holds it")
    func rateLimitsAndHeld() async throws {
        try await GoogleDriveWorkerFixture.run("limits") { f in
            let path = try f.file("a.txt", Array("a".utf8))
            f.server.updateFaults(FaultConfiguration(rateLimitRate: 1, retryAfterSeconds: 1, routes: ["drive/upload"]))
            let worker = try f.worker(.upload)
            let id = f.jobs.enqueue(try f.spec(.upload, source: path, to: "gdrive:drive:/")).jobID
            try await worker.waitUntil(timeout: .seconds(60), "a deferral") { $0.job(id)?.events.contains(.deferred) == true }
            #expect(f.jobs.job(id)?.lastError?.contains("rate_limited") == true || f.jobs.job(id)?.lastError?.contains("slow down") == true)
            f.server.updateFaults(.none)
            let done = try await worker.settle([id])
            try await worker.stop()
            #expect(done[0].state == .succeeded)
            #expect(!done[0].events.contains(.retryScheduled), "a rate limit is no failed attempt")

            // The refresh token is revoked: the next token refresh is invalid_grant, and the job is held, not failed.
            f.server.revokeGoogleDriveRefreshToken(f.refreshToken)
            f.tokens.forget("drive")
            _ = try await f.database.query("UPDATE ferry.accounts SET access_token_expires_at = now() - interval '1 hour' WHERE name = 'drive'")
            let held = try f.worker(.upload)
            let second = f.jobs.enqueue(try f.spec(.upload, source: try f.file("b.txt", [1]), to: "gdrive:drive:/")).jobID
            try await held.waitUntil(timeout: .seconds(60), "the job held") { $0.job(second)?.events.contains(.released) == true }
            f.jobs.setAccount(MemoryAccount(name: "drive", provider: "gdrive", status: "needs_reauth"))
            try await held.stop()
            #expect(f.jobs.job(second)?.state.isTerminal == false, "held, not failed")
            let status = try await f.database.query("SELECT status FROM ferry.accounts WHERE name = 'drive'").rows.first?.decode(String.self, at: 0)
            #expect(status == "needs_reauth")
        }
    }

    @Test("a create whose answer is lost after Drive stored it is not sent again: the retry finds the file, one file in all")
    func lostCreateAnswer() async throws {
        // Every upload is stored, then its connection dropped before the answer.
        let faults = FaultConfiguration(dropAfterApplyRate: 1, routes: ["drive/upload"])
        try await GoogleDriveWorkerFixture.run("lostcreate", faults: faults) { f in
            let data = GoogleDriveWorkerFixture.bytes(20_000, seed: 7)
            let path = try f.file("a.jpg", data)
            var spec = try f.spec(.upload, source: path, to: "gdrive:drive:/Lost/")
            spec.maxAttempts = 3
            let done = try await f.run([spec], kind: .upload)[0]
            #expect(done.state == .succeeded, "\(done.lastError ?? "")")
            #expect(done.attempt == 2 && done.result?["skipped"] == .string("unchanged"), "the retry found the stored file")
            #expect(f.items().filter { $0.path == "/Lost/a.jpg" }.count == 1, "never a second file of the name")
            #expect(f.server.googleDriveStats().multipartUploads == 1)
        }
    }
}
