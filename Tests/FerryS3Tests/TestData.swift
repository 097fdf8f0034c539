import AsyncHTTPClient
import Crypto
@testable import FerryS3
import FerryTestSupport
import Foundation
import Logging
import NIOCore

/// Shared pieces of the integration tests.
enum TestData {
    /// Deterministic, non-periodic bytes (xorshift), so an offset error shows as a mismatch.
    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var out = [UInt8](repeating: 0, count: count)
        for index in 0..<count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            out[index] = UInt8(truncatingIfNeeded: state)
        }
        return out
    }

    static func md5(_ bytes: [UInt8]) -> [UInt8] { Array(Insecure.MD5.hash(data: bytes)) }

    static func md5Hex(_ bytes: [UInt8]) -> String {
        Hex.encode(Insecure.MD5.hash(data: bytes))
    }

    /// A client for the moto server, or a failure saying why there is none.
    static func client(credentials: S3Credentials = S3Credentials(accessKeyID: "AKIAFERRYTEST", secretAccessKey: "ferry-test-secret"),
                       logger: Logger = Logger(label: "ferry.s3.test")) throws -> S3Client {
        let url = try MotoServer.url.get()
        let configuration = S3Configuration(region: "us-east-1", endpoint: try S3Endpoint(url: url), addressingStyle: .path)
        return S3Client(httpClient: .shared, configuration: configuration, credentials: credentials, logger: logger,
                        requestTimeout: .seconds(60), uploadTimeout: .seconds(120))
    }

    /// A fresh bucket with a unique name.
    static func bucket(_ client: S3Client, _ purpose: String) async throws -> String {
        let name = "ferry-\(purpose)-\(UUID().uuidString.lowercased().prefix(13))"
        try await client.createBucket(bucket: name)
        return name
    }

    /// Every byte of a download, read piece by piece.
    static func read(_ download: S3Download) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for try await piece in download.body { bytes.append(contentsOf: piece.readableBytesView) }
        return bytes
    }
}

/// An upload body pulled in pieces of `pieceSize`, as the worker streams a file region.
struct PieceSequence: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let bytes: [UInt8]
    let pieceSize: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        let bytes: [UInt8]
        let pieceSize: Int
        var offset = 0

        mutating func next() async -> ByteBuffer? {
            guard offset < bytes.count else { return nil }
            let end = Swift.min(offset + pieceSize, bytes.count)
            defer { offset = end }
            return ByteBuffer(bytes: bytes[offset..<end])
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(bytes: bytes, pieceSize: pieceSize) }
}
