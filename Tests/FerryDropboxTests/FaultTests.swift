import AsyncHTTPClient
import FerryCore
import FerryDevServer
import FerryTestSupport
import Foundation
import NIOCore
import Testing
@testable import FerryDropbox

@Suite("Faults and transport failures", .tags(.fast))
struct FaultTests {
    @Test("forced 429 is rateLimited with Retry-After 3")
    func rateLimited() async throws {
        try await DropboxTestServer.run { t in
            let token = try await t.accessToken()
            t.server.updateFaults(FaultConfiguration(rateLimitRate: 1.0, retryAfterSeconds: 3))
            let error = await #expect(throws: DropboxError.self) {
                try await t.client.getMetadata(path: "/anything", accessToken: token)
            }
            #expect(error?.code == .rateLimited)
            #expect(error?.httpStatus == 429)
            #expect(error?.retryAfter == 3)
            #expect(error?.tags == ["too_many_requests"])
            #expect(error?.isRetryable == true)
        }
    }

    @Test("forced 5xx is serverError and retryable")
    func serverError() async throws {
        try await DropboxTestServer.run { t in
            let token = try await t.accessToken()
            t.server.updateFaults(FaultConfiguration(failureRate: 1.0))
            let error = await #expect(throws: DropboxError.self) {
                try await t.client.currentAccount(accessToken: token)
            }
            #expect(error?.code == .serverError)
            #expect(error.map { [500, 503].contains($0.httpStatus ?? 0) } == true)
            #expect(error?.isRetryable == true)
        }
    }

    @Test("a dropped connection is transport and retryable, for RPC and for uploads")
    func dropped() async throws {
        try await DropboxTestServer.run { t in
            let token = try await t.accessToken()
            t.server.updateFaults(FaultConfiguration(dropRate: 1.0))
            let rpc = await #expect(throws: DropboxError.self) {
                try await t.client.currentAccount(accessToken: token)
            }
            #expect(rpc?.code == .transport)
            #expect(rpc?.httpStatus == nil)
            #expect(rpc?.isRetryable == true)
            #expect(rpc?.isCancellation == false)

            let upload = await #expect(throws: DropboxError.self) {
                try await t.client.uploadFile(commit: DropboxCommitInfo(path: "/drop.bin"), contentHash: nil,
                                              body: TestData.stream(TestData.bytes(300_000)), accessToken: token)
            }
            #expect(upload?.code == .transport)
        }
    }

    @Test("write contention on commit is tooManyWriteOperations and retryable")
    func writeContention() async throws {
        try await DropboxTestServer.run { t in
            let token = try await t.accessToken()
            t.server.updateFaults(FaultConfiguration(writeContentionRate: 1.0))
            let error = await #expect(throws: DropboxError.self) {
                try await t.client.uploadFile(commit: DropboxCommitInfo(path: "/busy.txt"), contentHash: nil,
                                              body: .bytes(ByteBuffer(string: "x")), accessToken: token)
            }
            #expect(error?.code == .tooManyWriteOperations)
            #expect(error?.httpStatus == 409)
            #expect(error?.tags == ["path", "too_many_write_operations"])
            #expect(error?.isRetryable == true)
        }
    }

    @Test("no answer within the request timeout is timeout")
    func timeout() async throws {
        try await DropboxTestServer.run(requestTimeout: .milliseconds(500)) { t in
            // Minted directly: a loaded machine must not time out the setup itself.
            let token = t.server.issueAccessToken(account: "alice")
            t.server.updateFaults(FaultConfiguration(latencyMilliseconds: 30_000))
            let error = await #expect(throws: DropboxError.self) {
                try await t.client.currentAccount(accessToken: token)
            }
            #expect(error?.code == .timeout)
            #expect(error?.isRetryable == true, "the 30 s answer never arrived: the 0.5 s timeout ended the call")
        }
    }

    @Test("a refused connection is transport")
    func refused() async throws {
        try await DropboxTestServer.run { t in
            // Port 1 on loopback has no listener.
            let client = DropboxClient(httpClient: t.http, endpoints: .single("http://127.0.0.1:1"), logger: t.logs.logger(label: "refused"))
            let error = await #expect(throws: DropboxError.self) {
                try await client.currentAccount(accessToken: "sl.some-token-value")
            }
            #expect(error?.code == .transport)
            #expect(error?.isRetryable == true)
        }
    }

    @Test("a cancelled call reports isCancellation")
    func cancelled() async throws {
        try await DropboxTestServer.run { t in
            let token = try await t.accessToken()
            // Held far longer than a loaded machine can take to notice the call arrived (5 s once was not: the call
            // completed before the cancel and the test saw a success).
            t.server.updateFaults(FaultConfiguration(latencyMilliseconds: 120_000))
            let client = t.client
            let route = "users/get_current_account"
            let before = t.server.stats().requestsPerRoute[route, default: 0]
            let task = Task { try await client.currentAccount(accessToken: token) }
            // Cancelled in flight: the server has counted the call and holds it in its latency.
            try await eventually(timeout: .seconds(60), "the call to reach the server") {
                t.server.stats().requestsPerRoute[route, default: 0] > before
            }
            task.cancel()
            let result = await task.result
            guard case .failure(let failure) = result, let error = failure as? DropboxError else {
                Issue.record("expected a failure")
                return
            }
            #expect(error.code == .transport)
            #expect(error.isCancellation)
        }
    }

    @Test("a chunk the server kept only half of resumes by sending just its tail: correct_offset inside the chunk")
    func partialChunkResume() async throws {
        try await DropboxTestServer.run { t in
            let token = try await t.accessToken()
            let chunk = 1_048_576
            let data = TestData.bytes(2 * chunk + 4321, seed: 5)
            func body(_ from: Int, _ to: Int) -> HTTPClientRequest.Body { TestData.stream(Array(data[from..<to]), piece: 100_000) }
            let session = try await t.client.uploadSessionStart(close: false, body: body(0, chunk), accessToken: token)

            // The server reads the second chunk whole, keeps its first half and never answers.
            t.server.updateFaults(FaultConfiguration(partialChunkRate: 1, routes: ["files/upload_session/append_v2"]))
            let lost = await #expect(throws: DropboxError.self) {
                try await t.client.uploadSessionAppend(sessionID: session, offset: Int64(chunk), close: false, body: body(chunk, 2 * chunk), accessToken: token)
            }
            #expect(lost?.code == .transport)
            #expect(lost?.isRetryable == true)
            t.server.updateFaults(.none)

            // Retrying the chunk tells where the server really is: inside the chunk.
            let moved = await #expect(throws: DropboxError.self) {
                try await t.client.uploadSessionAppend(sessionID: session, offset: Int64(chunk), close: false, body: body(chunk, 2 * chunk), accessToken: token)
            }
            #expect(moved?.tags == ["incorrect_offset"])
            let correct = try #require(moved?.correctOffset)
            #expect(correct == Int64(chunk + chunk / 2))
            #expect(correct > Int64(chunk) && correct < Int64(2 * chunk))

            // Only the tail goes again, then the rest and the commit.
            try await t.client.uploadSessionAppend(sessionID: session, offset: correct, close: false, body: body(Int(correct), 2 * chunk), accessToken: token)
            try await t.client.uploadSessionAppend(sessionID: session, offset: Int64(2 * chunk), close: false, body: body(2 * chunk, data.count), accessToken: token)
            let file = try await t.client.uploadSessionFinish(
                sessionID: session, offset: Int64(data.count), commit: DropboxCommitInfo(path: "/resumed.bin"), contentHash: nil,
                body: .bytes(ByteBuffer()), accessToken: token)
            #expect(file.size == Int64(data.count))
            #expect(file.contentHash == TestData.referenceHash(data))

            let stats = t.server.stats()
            let tail = Int64(2 * chunk) - correct
            #expect(stats.bytesReceivedPerSession[session] == Int64(data.count) + tail, "every byte once, plus the lost chunk's tail")
            #expect(stats.appendOffsetsPerSession[session] == [Int64(chunk), Int64(chunk), correct, Int64(2 * chunk)])
            #expect(stats.faultsInjected["partial_chunk"] == 1)
        }
    }

    @Test("the 429 form of too_many_write_operations is rateLimited, with its reason tag and retry_after")
    func writeRateLimit() async throws {
        try await DropboxTestServer.run { t in
            let token = try await t.accessToken()
            t.server.updateFaults(FaultConfiguration(retryAfterSeconds: 4, writeRateLimitRate: 1.0))
            let error = await #expect(throws: DropboxError.self) {
                try await t.client.uploadFile(commit: DropboxCommitInfo(path: "/busy.txt"), contentHash: nil,
                                              body: .bytes(ByteBuffer(string: "x")), accessToken: token)
            }
            #expect(error?.httpStatus == 429)
            #expect(error?.code == .rateLimited)
            #expect(error?.tags == ["too_many_write_operations"])
            #expect(error?.retryAfter == 4)
            #expect(error?.isRetryable == true)
        }
    }
}
