import AsyncHTTPClient
import FerryTestSupport
import Foundation
import NIOCore
import Testing
@testable import FerryDevServer

@Suite("Bandwidth limit", .tags(.fast))
struct BandwidthTests {
    @Test("a limited 1 MiB body arrives in many pieces, at roughly the set pace")
    func pacedBody() async throws {
        try await DevServerHarness.run(faults: FaultConfiguration(downloadBytesPerSecond: 512 * 1024)) { h in
            let file = try h.server.createWebFile(path: "big.bin", size: 1 << 20, seed: 3)
            let (result, pieces, seconds) = try await h.timedGet("/web/big.bin")
            print("1 MiB at 512 KiB/s: \(pieces) pieces in \(seconds) s")
            #expect(result.status == 200)
            #expect(result.body.count == 1 << 20)
            #expect(result.header("ETag") == file.etag)
            #expect(pieces >= 5, "streamed in pieces, not in one go")
            #expect(seconds >= 1.0, "expected about 2 s")

            // Without the limit the same body still arrives whole (no upper time bound: the machine is shared).
            h.server.updateFaults(.none)
            let (unlimited, _, _) = try await h.timedGet("/web/big.bin")
            #expect(unlimited.body.count == 1 << 20)
        }
    }

    @Test("files/download and Flickr photos are paced too")
    func otherBodies() async throws {
        try await DevServerHarness.run { h in
            let token = try await h.accessToken()
            let data = [UInt8](repeating: 7, count: 256 * 1024)
            _ = try await h.upload("/paced.bin", data, token: token)
            h.server.updateFaults(FaultConfiguration(downloadBytesPerSecond: 256 * 1024))
            let (download, pieces, seconds) = try await h.timedGet("/2/files/download", headers: [
                ("Authorization", "Bearer \(token)"), ("Dropbox-API-Arg", #"{"path":"/paced.bin"}"#),
            ])
            #expect(download.status == 200)
            #expect(download.body == data)
            #expect(pieces >= 5)
            #expect(seconds >= 0.5)

            let photo = try #require(try h.server.seedFlickrUser(userID: "1@N01", count: 1).first)
            h.server.updateFaults(FaultConfiguration(downloadBytesPerSecond: 2000))
            let (image, imagePieces, _) = try await h.timedGet(photo.path(suffix: "m"))
            #expect(Array(image.body.prefix(2)) == [0xFF, 0xD8])
            #expect(imagePieces >= 2, "a \(image.body.count)-byte photo at 2,000 B/s comes in 100-byte pieces")
        }
    }

    @Test("upload bodies are read at the set pace and stored whole; a lifted limit applies at once")
    func pacedUpload() async throws {
        try await DevServerHarness.run { h in
            let token = try await h.accessToken()
            let data = (0..<(512 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            h.server.updateFaults(FaultConfiguration(uploadBytesPerSecond: 256 * 1024))
            let began = ContinuousClock.now
            let paced = try await h.upload("/paced-up.bin", data, token: token)
            let seconds = (ContinuousClock.now - began).components.seconds
            print("512 KiB uploaded at 256 KiB/s in \(ContinuousClock.now - began)")
            #expect(paced.status == 200)
            #expect(paced.json["size"] as? Int == data.count)
            #expect(seconds >= 1, "expected about 2 s")
            let stored = try await h.download(#"{"path":"/paced-up.bin"}"#, token: token)
            #expect(stored.body == data)

            h.server.updateFaults(.none)
            let unlimited = try await h.upload("/unpaced-up.bin", data, token: token)
            #expect(unlimited.status == 200)
        }
    }

    @Test("a download pause holds every body at its byte, connection open, until it is lifted; Range bodies too")
    func pausedBody() async throws {
        try await DevServerHarness.run { h in
            let file = try h.server.createWebFile(path: "held.bin", size: 3 << 20, seed: 5)
            h.server.updateFaults(.none)
            let expected = try await h.request(.GET, "/web/held.bin").body
            let pause: Int64 = (1 << 20) + 17
            h.server.updateFaults(FaultConfiguration(downloadPauseAtByte: pause))

            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
            do { try await Self.heldBodies(h, client: client, expected: expected, pause: pause) } catch {
                try? await client.shutdown()
                throw error
            }
            try await client.shutdown()
            #expect(file.size == 3 << 20)
        }
    }

    /// One body held at `pause` and one Range body held at its start, both finished once the pause is lifted.
    static func heldBodies(_ h: DevServerHarness, client: HTTPClient, expected: [UInt8], pause: Int64) async throws {
        // Held: a reader gets exactly the bytes before the pause, and nothing more while it holds.
        let response = try await client.execute(HTTPClientRequest(url: h.baseURL + "/web/held.bin"), timeout: .seconds(120))
        #expect(response.status.code == 200)
        var body = response.body.makeAsyncIterator()
        var received: [UInt8] = []
        while received.count < Int(pause), let buffer = try await body.next() { received += buffer.readableBytesView }
        #expect(received.count == Int(pause), "nothing past the pause")
        // Nothing must happen: still held a while later.
        try await Task.sleep(for: .milliseconds(300))
        #expect(h.server.stats().webBytesSent == Int64(expected.count) + pause, "still held after 300 ms")

        // A Range body that starts past the pause is held at its first byte.
        var late = HTTPClientRequest(url: h.baseURL + "/web/held.bin")
        late.headers.add(name: "Range", value: "bytes=\(2 << 20)-")
        let lateResponse = try await client.execute(late, timeout: .seconds(120))
        #expect(lateResponse.status.code == 206)
        // Nothing must happen: no byte of it a while later.
        try await Task.sleep(for: .milliseconds(300))
        #expect(h.server.stats().webBytesSent == Int64(expected.count) + pause, "the Range body sent nothing yet")

        h.server.updateFaults(.none)
        while let buffer = try await body.next() { received += buffer.readableBytesView }
        #expect(received == expected, "the rest arrives once the pause is lifted")
        var tail: [UInt8] = []
        for try await buffer in lateResponse.body { tail += buffer.readableBytesView }
        #expect(tail == Array(expected[(2 << 20)...]))
    }

    @Test("a client killed mid-body resumes with Range from where it stopped")
    func killAndResume() async throws {
        try await DevServerHarness.run(faults: FaultConfiguration(downloadBytesPerSecond: 256 * 1024)) { h in
            let file = try h.server.createWebFile(path: "movie.mp4", size: 1 << 20, seed: 11)
            h.server.updateFaults(.none)
            let expected = try await h.request(.GET, "/web/movie.mp4").body
            h.server.updateFaults(FaultConfiguration(downloadBytesPerSecond: 256 * 1024))

            // A separate client that is shut down mid-body, as a killed process would be.
            let doomed = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
            var received: [UInt8] = []
            do {
                let response = try await doomed.execute(HTTPClientRequest(url: h.baseURL + "/web/movie.mp4"), timeout: .seconds(300))
                #expect(response.status.code == 200)
                for try await buffer in response.body {
                    received += buffer.readableBytesView
                    if received.count >= 128 * 1024 { break }
                }
            }
            try? await doomed.shutdown()
            #expect(received.count >= 128 * 1024)
            #expect(received.count < 1 << 20, "stopped mid-body")

            h.server.updateFaults(.none)
            let rest = try await h.request(.GET, "/web/movie.mp4", headers: [("Range", "bytes=\(received.count)-"), ("If-Range", file.etag)])
            #expect(rest.status == 206)
            #expect(rest.header("Content-Range") == "bytes \(received.count)-\(file.size - 1)/\(file.size)")
            #expect(received + rest.body == expected)
            #expect(h.server.stats().webRangeStartsPerPath["/web/movie.mp4"] == [0, 0, Int64(received.count)])
        }
    }
}
