import FerryTestSupport
import Foundation
import NIOCore
import Testing
@testable import FerryDevServer

@Suite("Fault injection and the /__dev/ surface", .tags(.fast))
struct FaultTests {
    @Test("429 carries Retry-After and retry_after; /__dev/ routes never fault")
    func rateLimitShape() async throws {
        try await DevServerHarness.run(faults: FaultConfiguration(seed: 1, rateLimitRate: 1, retryAfterSeconds: 7)) { h in
            let token = try await h.accessToken()
            let limited = try await h.rpc("users/get_current_account", token: token)
            #expect(limited.status == 429)
            #expect(limited.header("Retry-After") == "7")
            #expect(limited.errorSummary.hasPrefix("too_many_requests/"))
            let error = try #require(limited.json["error"] as? [String: Any])
            #expect((error["reason"] as? [String: Any])?[".tag"] as? String == "too_many_requests")
            #expect(error["retry_after"] as? Int == 7)

            let stats = try await h.request(.GET, "/__dev/stats")
            #expect(stats.status == 200)
            let decoded = try JSONDecoder().decode(DevServerStats.self, from: Data(stats.body))
            #expect(decoded.rateLimitedResponses == 1)
            #expect(decoded.faultsInjected["rate_limit"] == 1)
            #expect(decoded.requestsPerRoute["users/get_current_account"] == 1)
            #expect(decoded.tokenRefreshesPerAccount["alice"] == 1, "OAuth is not faulted by default")
        }
    }

    /// Runs the same request sequence against a fresh server and records what happened.
    private func outcomes(seed: UInt64) async throws -> (sequence: [String], stats: DevServerStats) {
        var sequence: [String] = []
        var stats = DevServerStats()
        let faults = FaultConfiguration(seed: seed, failureRate: 0.2, dropRate: 0.2, rateLimitRate: 0.2)
        try await DevServerHarness.run(faults: faults) { h in
            let token = try await h.accessToken()
            for _ in 0..<40 {
                do {
                    let result = try await h.rpc("users/get_current_account", token: token)
                    sequence.append(String(result.status))
                } catch {
                    sequence.append("dropped")
                }
            }
            stats = h.server.stats()
        }
        return (sequence, stats)
    }

    @Test("the same seed gives the same faults; every kind shows up")
    func deterministicFaults() async throws {
        let first = try await outcomes(seed: 42)
        let second = try await outcomes(seed: 42)
        let other = try await outcomes(seed: 7)
        #expect(first.sequence == second.sequence)
        #expect(first.sequence != other.sequence)
        #expect(Set(first.sequence).isSuperset(of: ["200", "429", "dropped"]))
        #expect(first.sequence.contains("500") || first.sequence.contains("503"))
        #expect(first.stats.faultsInjected["drop"] == first.sequence.filter { $0 == "dropped" }.count)
        #expect(first.stats.rateLimitedResponses == first.sequence.filter { $0 == "429" }.count)
        #expect(first.stats.faultsInjected["failure"] == first.sequence.filter { $0 == "500" || $0 == "503" }.count)
    }

    @Test("drop-after-apply really applies the write before closing the connection")
    func dropAfterApply() async throws {
        let faults = FaultConfiguration(seed: 3, dropAfterApplyRate: 1, routes: ["files/upload"])
        try await DevServerHarness.run(faults: faults) { h in
            let token = try await h.accessToken()
            let data = Array("applied".utf8)
            let dropped = await h.isDropped { try await h.upload("/applied.txt", data, token: token) }
            #expect(dropped)
            let meta = try await h.rpc("files/get_metadata", token: token, #"{"path":"/applied.txt"}"#)
            #expect(meta.status == 200)
            #expect(meta.json["size"] as? Int == data.count)
            #expect(h.server.stats().faultsInjected["drop_after_apply"] == 1)
            #expect(h.server.stats().filesCommitted == 1)

            // Same for a chunk: the retry learns the chunk landed through incorrect_offset.
            h.server.updateFaults(FaultConfiguration(seed: 3, dropAfterApplyRate: 1, routes: ["files/upload_session/append_v2"]))
            let start = try await h.content("files/upload_session/start", token: token, arg: "{}", body: [1, 2, 3])
            let session = try #require(start.json["session_id"] as? String)
            let arg = #"{"cursor":{"session_id":"\#(session)","offset":3}}"#
            #expect(await h.isDropped { try await h.content("files/upload_session/append_v2", token: token, arg: arg, body: [4, 5, 6, 7]) })
            h.server.updateFaults(.none)
            let retry = try await h.content("files/upload_session/append_v2", token: token, arg: arg, body: [4, 5, 6, 7])
            #expect(retry.errorTag == "incorrect_offset")
            #expect((retry.json["error"] as? [String: Any])?["correct_offset"] as? Int == 7)
        }
    }

    @Test("a plain drop applies nothing")
    func dropBeforeApply() async throws {
        try await DevServerHarness.run(faults: FaultConfiguration(seed: 5, dropRate: 1, routes: ["files/upload"])) { h in
            let token = try await h.accessToken()
            #expect(await h.isDropped { try await h.upload("/never.txt", [1], token: token) })
            let meta = try await h.rpc("files/get_metadata", token: token, #"{"path":"/never.txt"}"#)
            #expect(meta.errorSummary.hasPrefix("path/not_found/"))
            #expect(h.server.stats().filesCommitted == 0)
        }
    }

    @Test("write contention: 409 too_many_write_operations on commits only")
    func writeContention() async throws {
        try await DevServerHarness.run(faults: FaultConfiguration(seed: 9, writeContentionRate: 1)) { h in
            let token = try await h.accessToken()
            let upload = try await h.upload("/c.txt", [1], token: token)
            #expect(upload.status == 409)
            #expect(upload.errorSummary.hasPrefix("path/too_many_write_operations/"))
            #expect(((upload.json["error"] as? [String: Any])?["reason"] as? [String: Any])?[".tag"] as? String == "too_many_write_operations")

            let start = try await h.content("files/upload_session/start", token: token, arg: #"{"close":true}"#, body: [1])
            #expect(start.status == 200, "start does not commit, so it is never contended")
            let session = try #require(start.json["session_id"] as? String)
            let finish = try await h.content("files/upload_session/finish", token: token,
                                             arg: #"{"cursor":{"session_id":"\#(session)","offset":1},"commit":{"path":"/c.txt"}}"#)
            #expect(finish.status == 409)
            #expect(finish.errorTag == "too_many_write_operations")

            let batch = try await h.rpc("files/upload_session/finish_batch_v2", token: token,
                                        #"{"entries":[{"cursor":{"session_id":"\#(session)","offset":1},"commit":{"path":"/c.txt"}}]}"#)
            #expect(batch.status == 200)
            let entry = (batch.json["entries"] as? [[String: Any]])?.first
            #expect(entry?[".tag"] as? String == "failure")
            #expect((entry?["failure"] as? [String: Any])?[".tag"] as? String == "too_many_write_operations")

            #expect(try await h.rpc("users/get_current_account", token: token).status == 200)
            #expect(h.server.stats().filesCommitted == 0)
            #expect(h.server.stats().faultsInjected["write_contention"] == 3)
        }
    }

    @Test("/__dev/accounts links an account; /__dev/faults changes faults at runtime")
    func controlSurface() async throws {
        try await DevServerHarness.run { h in
            let linked = try await h.request(.POST, "/__dev/accounts", body: Array(#"{"account":"erin"}"#.utf8))
            #expect(linked.status == 200)
            let refresh = try #require(linked.json["refresh_token"] as? String)
            let exchanged = try await h.tokenRequest([("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", DevServerHarness.appKey), ("client_secret", h.appSecret)])
            let token = try #require(exchanged.json["access_token"] as? String)

            let set = try await h.request(.POST, "/__dev/faults", body: Array(#"{"seed":1,"failure_rate":1}"#.utf8))
            #expect(set.status == 200)
            #expect(set.json["failure_rate"] as? Double == 1)
            let failed = try await h.rpc("users/get_current_account", token: token)
            #expect(failed.status == 500 || failed.status == 503)
            #expect(failed.header("Content-Type")?.hasPrefix("text/plain") == true)

            _ = try await h.request(.POST, "/__dev/faults", body: Array("{}".utf8))
            #expect(try await h.rpc("users/get_current_account", token: token).status == 200)

            let seeded = try await h.request(.POST, "/__dev/seed", body: Array(#"{"account":"erin","folder":"/seeded","count":5,"size":4}"#.utf8))
            #expect(seeded.json["created"] as? Int == 5)
            let listing = try await h.rpc("files/list_folder", token: token, #"{"path":"/seeded"}"#)
            #expect((listing.json["entries"] as? [Any])?.count == 5)

            _ = try await h.request(.POST, "/__dev/reset-stats")
            #expect(h.server.stats().requestsPerRoute.isEmpty)
        }
    }

    @Test("write_rate_limit_rate answers commits with the 429 form of too_many_write_operations; other routes never")
    func writeRateLimit() async throws {
        try await DevServerHarness.run(faults: FaultConfiguration(retryAfterSeconds: 2, writeRateLimitRate: 1)) { h in
            let token = try await h.accessToken()
            let limited = try await h.upload("/busy.txt", Array("x".utf8), token: token)
            #expect(limited.status == 429)
            #expect(limited.header("Retry-After") == "2")
            #expect(limited.header("Content-Type") == "application/json")
            #expect(limited.errorSummary.hasPrefix("too_many_write_operations/"))
            let error = try #require(limited.json["error"] as? [String: Any])
            #expect((error["reason"] as? [String: Any])?[".tag"] as? String == "too_many_write_operations")
            #expect(error["retry_after"] as? Int == 2)
            #expect(try await h.rpc("users/get_current_account", token: token).status == 200)
            let stats = h.server.stats()
            #expect(stats.faultsInjected["write_rate_limit"] == 1)
            #expect(stats.rateLimitedResponses == 1)
            #expect(stats.filesCommitted == 0)
        }
    }

    @Test("partial_chunk_rate keeps the first half of an appended chunk and closes the connection; the retry learns where")
    func partialChunk() async throws {
        try await DevServerHarness.run { h in
            let token = try await h.accessToken()
            let data = (0..<1010).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            let start = try await h.content("files/upload_session/start", token: token, arg: "{}", body: Array(data[0..<10]))
            let session = try #require(start.json["session_id"] as? String)
            let append = { (offset: Int, end: Int) async throws -> HTTPResult in
                try await h.content("files/upload_session/append_v2", token: token,
                                    arg: #"{"cursor":{"session_id":"\#(session)","offset":\#(offset)}}"#, body: Array(data[offset..<end]))
            }
            h.server.updateFaults(FaultConfiguration(partialChunkRate: 1, routes: ["files/upload_session/append_v2"]))
            #expect(await h.isDropped { try await append(10, 1010) })
            h.server.updateFaults(.none)

            let retry = try await append(10, 1010)
            #expect(retry.status == 409)
            let lookup = try #require(retry.json["error"] as? [String: Any])
            #expect(lookup[".tag"] as? String == "incorrect_offset")
            #expect(lookup["correct_offset"] as? Int == 510, "half of the 1000-byte chunk was kept")
            #expect(try await append(510, 1010).status == 200)
            let finish = try await h.content("files/upload_session/finish", token: token,
                                             arg: #"{"cursor":{"session_id":"\#(session)","offset":1010},"commit":{"path":"/partial.bin"}}"#)
            #expect(finish.status == 200, "\(finish.text)")
            var hasher = ContentHasher()
            hasher.update(ByteBuffer(bytes: data))
            #expect(finish.json["content_hash"] as? String == hasher.finalize(), "the kept half and the resent tail make the file")
            let stats = h.server.stats()
            #expect(stats.faultsInjected["partial_chunk"] == 1)
            #expect(stats.appendOffsetsPerSession[session] == [10, 10, 510])
            #expect(stats.bytesReceivedPerSession[session] == Int64(10 + 1000 + 500), "the chunk once, then only its tail")
        }
    }

    @Test("requests_per_second answers 429 too_many_requests beyond the budget, and the budget comes back with time")
    func rateBudget() async throws {
        try await DevServerHarness.run { h in
            let token = try await h.accessToken()
            h.server.updateFaults(FaultConfiguration(requestsPerSecond: 1, routes: ["users/get_current_account"]))
            // Five requests at once against a budget of one a second: however slow a loaded machine is, they arrive
            // within far less than five seconds (few enough for the client's connection pool).
            let results = try await withThrowingTaskGroup(of: HTTPResult.self) { group in
                for _ in 0..<5 { group.addTask { try await h.rpc("users/get_current_account", token: token) } }
                var results: [HTTPResult] = []
                for try await result in group { results.append(result) }
                return results
            }
            let statuses = results.map(\.status)
            let answer = try #require(results.first { $0.status == 429 }, "five requests at once at one a second: \(statuses)")
            #expect(statuses.contains(200), "the budget starts full")
            #expect(answer.header("Retry-After") == "1")
            #expect(answer.errorSummary.hasPrefix("too_many_requests/"))
            #expect(try await h.rpc("users/get_space_usage", token: token).status == 200, "routes outside the filter are not counted")
            // Time is the subject: the budget refills on the server's monotonic clock (no injectable clock there).
            try await Task.sleep(for: .milliseconds(1100))
            #expect(try await h.rpc("users/get_current_account", token: token).status == 200)
            #expect((h.server.stats().faultsInjected["rate_budget"] ?? 0) >= 1)
        }
    }

    @Test("POST /__dev/faults takes the new settings by their snake_case names")
    func newSettingsOverControlRoute() async throws {
        try await DevServerHarness.run { h in
            let body = #"{"partial_chunk_rate":0.5,"write_rate_limit_rate":0.25,"requests_per_second":7}"#
            let set = try await h.request(.POST, "/__dev/faults", body: Array(body.utf8))
            #expect(set.status == 200)
            #expect(set.json["partial_chunk_rate"] as? Double == 0.5)
            #expect(set.json["requests_per_second"] as? Int == 7)
            #expect(h.server.faults == FaultConfiguration(writeRateLimitRate: 0.25, partialChunkRate: 0.5, requestsPerSecond: 7))
        }
    }
}
