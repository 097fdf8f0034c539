import FerryTestSupport
import Foundation
import Testing
@testable import FerryDevServer

@Suite("Batch commits and the namespace lock", .tags(.fast))
struct BatchCommitTests {
    /// Starts a closed session holding `text` and returns its id.
    static func closedSession(_ h: DevServerHarness, token: String, _ text: String) async throws -> String {
        let start = try await h.content("files/upload_session/start", token: token, arg: #"{"close":true}"#, body: Array(text.utf8))
        #expect(start.status == 200)
        return try #require(start.json["session_id"] as? String)
    }

    @Test("finish_batch_v2: success entries are FileMetadata beside their tag, a fail_commit_paths entry fails alone with path/insufficient_space")
    func perEntryFailure() async throws {
        try await DevServerHarness.run(faults: FaultConfiguration(failCommitPaths: ["/b/bad"])) { h in
            let token = try await h.accessToken()
            var entries: [String] = []
            for name in ["good-1.txt", "bad-2.txt", "good-3.txt"] {
                let id = try await Self.closedSession(h, token: token, "content \(name)")
                let offset = "content \(name)".utf8.count
                entries.append(#"{"cursor":{"session_id":"\#(id)","offset":\#(offset)},"commit":{"path":"/b/\#(name)","mode":"add"}}"#)
            }
            let result = try await h.rpc("files/upload_session/finish_batch_v2", token: token, #"{"entries":[\#(entries.joined(separator: ","))]}"#)
            #expect(result.status == 200)
            let items = try #require(result.json["entries"] as? [[String: Any]])
            #expect(items.map { $0[".tag"] as? String } == ["success", "failure", "success"])
            #expect(items[0]["path_display"] as? String == "/b/good-1.txt")
            #expect(items[0]["content_hash"] as? String != nil)
            #expect(items[0]["rev"] as? String != nil)
            let failure = try #require(items[1]["failure"] as? [String: Any])
            #expect(failure[".tag"] as? String == "path")
            #expect((failure["path"] as? [String: Any])?[".tag"] as? String == "insufficient_space")
            let stats = h.server.stats()
            #expect(stats.finishBatchEntries == [3])
            #expect(stats.singleCommits == 0)
            #expect(stats.filesCommitted == 2)

            // The same fault on a single commit: a 409 with the UploadError shape.
            let single = try await h.upload("/b/bad-4.txt", Array("x".utf8), token: token)
            #expect(single.status == 409)
            #expect((single.json["error_summary"] as? String)?.hasPrefix("path/insufficient_space") == true)
        }
    }

    @Test("namespace lock: concurrent single commits to one account contend (429 too_many_write_operations), a batch of the same files takes it once")
    func namespaceLock() async throws {
        try await DevServerHarness.run(faults: FaultConfiguration(namespaceLockMilliseconds: 50)) { h in
            let token = try await h.accessToken()
            let results = try await withThrowingTaskGroup(of: HTTPResult.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        try await h.upload("/lock/single-\(index).txt", Array("single \(index)".utf8), token: token)
                    }
                }
                var all: [HTTPResult] = []
                for try await result in group { all.append(result) }
                return all
            }
            let refused = results.filter { $0.status == 429 }
            #expect(!refused.isEmpty, "some single commits met the lock: \(results.map(\.status))")
            #expect(results.contains { $0.status == 200 })
            for body in refused.map(\.json) {
                let error = try #require(body["error"] as? [String: Any])
                #expect((error["reason"] as? [String: Any])?[".tag"] as? String == "too_many_write_operations")
                #expect(error["retry_after"] as? Int == 1)
                #expect((body["error_summary"] as? String)?.hasPrefix("too_many_write_operations") == true)
            }
            #expect(h.server.stats().namespaceLockContention == refused.count)

            // Eight files in one finish_batch_v2: one lock, no contention.
            var entries: [String] = []
            for index in 0..<8 {
                let text = "batched \(index)"
                let id = try await Self.closedSession(h, token: token, text)
                entries.append(#"{"cursor":{"session_id":"\#(id)","offset":\#(text.utf8.count)},"commit":{"path":"/lock/batch-\#(index).txt"}}"#)
            }
            let started = ContinuousClock.now
            let batch = try await h.rpc("files/upload_session/finish_batch_v2", token: token, #"{"entries":[\#(entries.joined(separator: ","))]}"#)
            #expect(batch.status == 200)
            #expect(ContinuousClock.now - started >= .milliseconds(50), "the batch held the lock")
            let items = try #require(batch.json["entries"] as? [[String: Any]])
            #expect(items.allSatisfy { $0[".tag"] as? String == "success" })
            #expect(h.server.stats().finishBatchEntries == [8])
        }
    }

    @Test("hold_commits: a commit waits until the hold is cleared, then applies; latency_milliseconds is settable at runtime")
    func holdCommits() async throws {
        try await DevServerHarness.run { h in
            let token = try await h.accessToken()
            h.server.updateFaults(FaultConfiguration(holdCommits: true))
            let id = try await Self.closedSession(h, token: token, "held")
            let commit = Task {
                try await h.rpc("files/upload_session/finish_batch_v2", token: token,
                                #"{"entries":[{"cursor":{"session_id":"\#(id)","offset":4},"commit":{"path":"/held.txt"}}]}"#)
            }
            // Nothing must happen: the commit is still held a while later.
            try await Task.sleep(for: .milliseconds(300))
            #expect(h.server.stats().filesCommitted == 0, "held")
            h.server.updateFaults(FaultConfiguration(latencyMilliseconds: 30))
            let result = try await commit.value
            #expect(result.status == 200)
            #expect(h.server.stats().filesCommitted == 1)
            let started = ContinuousClock.now
            _ = try await h.rpc("files/get_metadata", token: token, #"{"path":"/held.txt"}"#)
            #expect(ContinuousClock.now - started >= .milliseconds(30))
        }
    }
}

@Suite("Concurrent upload sessions", .tags(.fast))
struct ConcurrentSessionTests {
    static let block = 4 * 1024 * 1024

    @Test("session_type concurrent: no data or close at start, appends at multiples of 4 MiB in any order, committed by finish_batch_v2")
    func outOfOrderAppends() async throws {
        try await DevServerHarness.run { h in
            let token = try await h.accessToken()
            let refusedData = try await h.content("files/upload_session/start", token: token, arg: #"{"session_type":"concurrent"}"#, body: [1])
            #expect(refusedData.status == 409)
            #expect(refusedData.errorTag == "concurrent_session_data_not_allowed")
            let refusedClose = try await h.content(
                "files/upload_session/start", token: token, arg: #"{"close":true,"session_type":{".tag":"concurrent"}}"#)
            #expect(refusedClose.errorTag == "concurrent_session_close_not_allowed")

            let start = try await h.content("files/upload_session/start", token: token, arg: #"{"session_type":"concurrent"}"#)
            let id = try #require(start.json["session_id"] as? String)
            let data: [UInt8] = (0..<(2 * Self.block + 1000)).map { UInt8(($0 * 7 + 3) % 251) }
            func append(_ offset: Int, _ count: Int, close: Bool) async throws -> HTTPResult {
                try await h.content(
                    "files/upload_session/append_v2", token: token,
                    arg: #"{"cursor":{"session_id":"\#(id)","offset":\#(offset)},"close":\#(close)}"#,
                    body: Array(data[offset..<(offset + count)]))
            }
            let misaligned = try await append(1000, Self.block, close: false)
            #expect(misaligned.errorTag == "concurrent_session_invalid_offset")
            let oddSize = try await append(0, 1000, close: false)
            #expect(oddSize.errorTag == "concurrent_session_invalid_data_size")
            // Not complete yet: a commit is refused.
            let early = try await h.rpc("files/upload_session/finish_batch_v2", token: token,
                                        #"{"entries":[{"cursor":{"session_id":"\#(id)","offset":\#(data.count)},"commit":{"path":"/c.bin"}}]}"#)
            #expect((early.json["entries"] as? [[String: Any]])?.first?[".tag"] as? String == "failure")

            #expect(try await append(Self.block, Self.block, close: false).status == 200)
            #expect(try await append(2 * Self.block, 1000, close: true).status == 200)
            #expect(try await append(0, Self.block, close: false).status == 200)
            let batch = try await h.rpc("files/upload_session/finish_batch_v2", token: token,
                                        #"{"entries":[{"cursor":{"session_id":"\#(id)","offset":\#(data.count)},"commit":{"path":"/c.bin"}}]}"#)
            let entry = try #require((batch.json["entries"] as? [[String: Any]])?.first)
            #expect(entry[".tag"] as? String == "success")
            #expect(entry["size"] as? Int == data.count)
            var hasher = ContentHasher()
            data.withUnsafeBytes { hasher.update($0) }
            #expect(entry["content_hash"] as? String == hasher.finalize())
            let downloaded = try await h.download(#"{"path":"/c.bin"}"#, token: token)
            #expect(downloaded.body == data)
        }
    }
}
