import Crypto
import FerryCore
import FerryTestSupport
import Foundation
import NIOCore
import Testing
@testable import FerryDropbox

@Suite("Dropbox content hash", .tags(.fast))
struct ContentHasherTests {
    @Test("empty input hashes to SHA-256 of nothing")
    func empty() {
        #expect(DropboxContentHasher().finalize() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test("one block is SHA-256 of the block's SHA-256")
    func singleBlock() {
        var hasher = DropboxContentHasher()
        hasher.update(Array("hello".utf8))
        #expect(hasher.finalize() == TestData.referenceHash(Array("hello".utf8)))
        // finalize() leaves the hasher usable.
        hasher.update(Array(" world".utf8))
        #expect(hasher.finalize() == TestData.referenceHash(Array("hello world".utf8)))
    }

    @Test("odd-sized pieces straddling 4 MiB blocks equal the one-shot and the reference", arguments: [
        DropboxContentHasher.blockSize, 2 * DropboxContentHasher.blockSize + 12_345, 3 * DropboxContentHasher.blockSize - 1,
    ])
    func multiBlock(size: Int) {
        let data = TestData.bytes(size)
        var oneShot = DropboxContentHasher()
        oneShot.update(data)
        var pieces = DropboxContentHasher()
        let sizes = [1, 7, 65_537, 1_000_003, DropboxContentHasher.blockSize - 3, 4_099]
        var offset = 0
        var turn = 0
        while offset < data.count {
            let end = min(offset + sizes[turn % sizes.count], data.count)
            if turn % 2 == 0 {
                data[offset..<end].withUnsafeBytes { pieces.update($0) }
            } else {
                pieces.update(ByteBuffer(bytes: data[offset..<end]))
            }
            offset = end
            turn += 1
        }
        #expect(pieces.finalize() == oneShot.finalize())
        #expect(oneShot.finalize() == TestData.referenceHash(data))
        // Not plain SHA-256 of the whole input.
        #expect(oneShot.finalize() != SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined())
    }

    @Test("matches the dev server's content_hash for an uploaded multi-block file, also when hashed while downloading")
    func matchesServer() async throws {
        let data = TestData.bytes(2 * DropboxContentHasher.blockSize + 777, seed: 42)
        var hasher = DropboxContentHasher()
        hasher.update(data)
        let expected = hasher.finalize()
        try await DropboxTestServer.run { t in
            let token = try await t.accessToken()
            let metadata = try await t.client.uploadFile(
                commit: DropboxCommitInfo(path: "/hash/big.bin"), contentHash: expected, body: TestData.stream(data, piece: 300_001), accessToken: token)
            #expect(metadata.contentHash == expected)
            #expect(metadata.size == Int64(data.count))

            let download = try await t.client.download(path: "/hash/big.bin", rangeStart: nil, accessToken: token)
            var streamed = DropboxContentHasher()
            var received = 0
            for try await buffer in download.body {
                streamed.update(buffer)
                received += buffer.readableBytes
            }
            #expect(received == data.count)
            #expect(streamed.finalize() == expected)
            #expect(download.metadata?.contentHash == expected)
        }
    }
}
