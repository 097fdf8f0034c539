import Crypto
import FerryDevServer
import FerryTestSupport
import Foundation
import NIOCore
import Testing
@testable import FerryGoogleDrive

@Suite("Google Drive resumable sessions against the dev server", .tags(.fast))
struct ResumableTests {
    static let chunk = Int64(GoogleDriveClient.chunkGranularity)

    @Test("chunks of 256 KiB multiples answer 308 with Range; a status query tells where it stands; the last chunk stores the file")
    func chunked() async throws {
        try await GoogleDriveTestServer.run { h in
            let token = try await h.accessToken()
            let data = GoogleDriveTestServer.bytes(Int(3 * Self.chunk + 1234))
            let total = Int64(data.count)
            let session = try await h.client.startResumableSession(
                GoogleDriveNewFile(name: "big.bin", parentID: "root", modifiedTime: "2023-03-03T03:03:03Z"), size: total, accessToken: token)
            #expect(session.hasPrefix(h.baseURL + "/upload/drive/v3/files?uploadType=resumable&upload_id="))
            #expect(try await h.client.uploadStatus(session: session, total: total, accessToken: token) == .incomplete(received: 0))

            func send(_ start: Int64, _ end: Int64) async throws -> GoogleDriveUploadStatus {
                try await h.client.uploadChunk(
                    session: session, body: .bytes(ByteBuffer(bytes: data[Int(start)..<Int(end)])), start: start, end: end, total: total, accessToken: token)
            }
            #expect(try await send(0, 2 * Self.chunk) == .incomplete(received: 2 * Self.chunk))
            // A chunk that is not a multiple of 256 KiB (and not the last) is refused and changes nothing.
            await #expect { try await send(2 * Self.chunk, 2 * Self.chunk + 1000) } throws: { ($0 as? GoogleDriveError)?.code == .badRequest }
            #expect(try await h.client.uploadStatus(session: session, total: total, accessToken: token) == .incomplete(received: 2 * Self.chunk))
            // A chunk at the wrong offset writes nothing: the 308 says where to go on.
            #expect(try await send(0, Self.chunk) == .incomplete(received: 2 * Self.chunk))
            guard case .complete(let file) = try await send(2 * Self.chunk, total) else {
                Issue.record("the last chunk did not complete the upload")
                return
            }
            #expect(file.size == total && file.md5Checksum == FilesTests.hex(Insecure.MD5.hash(data: data)))
            #expect(file.modifiedTime == "2023-03-03T03:03:03.000Z")
            // An answer lost on the way is found again with a status query.
            #expect(try await h.client.uploadStatus(session: session, total: total, accessToken: token) == .complete(file))
            #expect(try await GoogleDriveTestServer.collect(try await h.client.download(id: file.id, accessToken: token)) == data)
            let stats = h.server.googleDriveStats()
            #expect(stats.sessionsCompleted == 1 && stats.statusQueries == 3)
            #expect(!h.logs.all.joined().contains(session), "the session URI is never logged")
        }
    }

    @Test("an expired session is sessionExpired; a new revision goes through a PATCH session; a URI on another host is refused")
    func expiryAndRevisions() async throws {
        try await GoogleDriveTestServer.run { h in
            let token = try await h.accessToken()
            let data = GoogleDriveTestServer.bytes(Int(Self.chunk) * 2)
            let total = Int64(data.count)
            let session = try await h.client.startResumableSession(GoogleDriveNewFile(name: "x.bin", parentID: "root"), size: total, accessToken: token)
            _ = try await h.client.uploadChunk(
                session: session, body: .bytes(ByteBuffer(bytes: data[..<Int(Self.chunk)])), start: 0, end: Self.chunk, total: total, accessToken: token)
            #expect(h.server.expireGoogleDriveSessions() == 1)
            await #expect { try await h.client.uploadStatus(session: session, total: total, accessToken: token) } throws: { error in
                let error = error as? GoogleDriveError
                return error?.code == .sessionExpired && !"\(error!)".contains(session)
            }

            let first = try await h.client.multipartUpload(GoogleDriveNewFile(name: "x.bin", parentID: "root"), bytes: [1, 2, 3], accessToken: token)
            let update = try await h.client.startResumableSession(GoogleDriveNewFile(name: "x.bin"), fileID: first.id, size: total, accessToken: token)
            #expect(update.contains("/upload/drive/v3/files/\(first.id)?"))
            let done = try await h.client.uploadChunk(session: update, body: .bytes(ByteBuffer(bytes: data)), start: 0, end: total, total: total, accessToken: token)
            guard case .complete(let file) = done else {
                Issue.record("not complete")
                return
            }
            #expect(file.id == first.id && file.headRevisionId != first.headRevisionId && file.size == total)

            let foreign = "http://203.0.113.9/upload/drive/v3/files?uploadType=resumable&upload_id=abc"
            await #expect { try await h.client.uploadStatus(session: foreign, total: 1, accessToken: token) } throws: {
                ($0 as? GoogleDriveError)?.code == .badRequest
            }
        }
    }

    @Test("a chunk that breaks off keeps whole 256 KiB pieces; the status query says how many")
    func brokenChunk() async throws {
        try await GoogleDriveTestServer.run { h in
            let token = try await h.accessToken()
            let data = GoogleDriveTestServer.bytes(Int(Self.chunk) * 4)
            let total = Int64(data.count)
            let session = try await h.client.startResumableSession(GoogleDriveNewFile(name: "p.bin", parentID: "root"), size: total, accessToken: token)
            // The partial_chunk fault keeps half the chunk, then drops the connection.
            h.server.updateFaults(FaultConfiguration(partialChunkRate: 1, routes: ["drive/upload"]))
            await #expect { try await h.client.uploadChunk(session: session, body: .bytes(ByteBuffer(bytes: data)), start: 0, end: total, total: total, accessToken: token) } throws: {
                ($0 as? GoogleDriveError)?.code == .transport
            }
            h.server.updateFaults(.none)
            #expect(try await h.client.uploadStatus(session: session, total: total, accessToken: token) == .incomplete(received: 2 * Self.chunk))
            let rest = try await h.client.uploadChunk(
                session: session, body: .bytes(ByteBuffer(bytes: data[Int(2 * Self.chunk)...])), start: 2 * Self.chunk, end: total, total: total,
                accessToken: token)
            guard case .complete(let file) = rest else {
                Issue.record("not complete")
                return
            }
            #expect(try await GoogleDriveTestServer.collect(try await h.client.download(id: file.id, accessToken: token)) == data)
        }
    }
}
