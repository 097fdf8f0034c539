import Crypto
import FerryDevServer
import FerryTestSupport
import Foundation
import Testing
@testable import FerryGoogleDrive

@Suite("Google Drive files against the dev server", .tags(.fast))
struct FilesTests {
    static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 { digest.map { String(format: "%02x", $0) }.joined() }

    @Test("names with quotes and backslashes are found exactly, never read as query syntax; same-name siblings are both there")
    func hostileNames() async throws {
        try await GoogleDriveTestServer.run { h in
            let token = try await h.accessToken()
            let folder = try await h.client.createFolder(name: "Hostile", parentID: "root", accessToken: token)
            let names = ["it's", #"a\'b"#, #"x' or name contains '"#, #"back\\slash"#, #"end\"#, "plain"]
            for name in names {
                _ = try await h.client.multipartUpload(GoogleDriveNewFile(name: name, parentID: folder.id), bytes: Array(name.utf8), accessToken: token)
            }
            for name in names {
                let found = try await h.client.findChildren(named: name, in: folder.id, accessToken: token)
                #expect(found.map(\.name) == [name], "\(name)")
            }
            #expect(GoogleDriveQuery.quoted(#"a'b\c"#) == #"'a\'b\\c'"#)
            // Drive allows two files of one name in one folder: both are listed.
            _ = try await h.client.multipartUpload(GoogleDriveNewFile(name: "plain", parentID: folder.id), bytes: [1], accessToken: token)
            #expect(try await h.client.findChildren(named: "plain", in: folder.id, accessToken: token).count == 2)
            #expect(try await h.client.findChildren(named: "plain", in: folder.id, foldersOnly: true, accessToken: token).isEmpty)
        }
    }

    @Test("files.list pages with pageToken until the last page")
    func paging() async throws {
        try await GoogleDriveTestServer.run { h in
            let token = try await h.accessToken()
            let folder = try await h.client.createFolder(name: "Pages", parentID: "root", accessToken: token)
            for index in 0..<5 {
                _ = try await h.client.multipartUpload(GoogleDriveNewFile(name: "f\(index)", parentID: folder.id), bytes: [UInt8(index)], accessToken: token)
            }
            var names: [String] = []
            var pageToken: String?
            var pages = 0
            repeat {
                let page = try await h.client.listFiles(query: GoogleDriveQuery.children(of: folder.id), pageSize: 2, pageToken: pageToken, accessToken: token)
                names += page.files.map(\.name)
                pageToken = page.nextPageToken
                pages += 1
            } while pageToken != nil
            #expect(names == ["f0", "f1", "f2", "f3", "f4"])
            #expect(pages == 3)
        }
    }

    @Test("multipart upload keeps modifiedTime and reports md5/sha256; Range downloads; a new revision keeps the id; copy; delete")
    func multipartRoundTrip() async throws {
        try await GoogleDriveTestServer.run { h in
            let token = try await h.accessToken()
            let data = GoogleDriveTestServer.bytes(300_000)
            let metadata = GoogleDriveNewFile(name: "Été 😀.bin", parentID: "root", modifiedTime: "2024-05-06T07:08:09.000Z")
            let file = try await h.client.multipartUpload(metadata, bytes: data, accessToken: token)
            #expect(file.size == Int64(data.count))
            #expect(file.md5Checksum == Self.hex(Insecure.MD5.hash(data: data)))
            #expect(file.sha256Checksum == Self.hex(SHA256.hash(data: data)))
            #expect(file.modifiedTime == "2024-05-06T07:08:09.000Z")
            #expect(file.name == "Été 😀.bin" && file.headRevisionId != nil)

            #expect(try await GoogleDriveTestServer.collect(try await h.client.download(id: file.id, accessToken: token)) == data)
            let part = try await h.client.download(id: file.id, rangeStart: 1000, accessToken: token)
            #expect(part.status == 206 && part.contentRangeStart == 1000 && part.completeLength == Int64(data.count))
            #expect(try await GoogleDriveTestServer.collect(part) == Array(data[1000...]))
            await #expect { try await h.client.download(id: file.id, rangeStart: Int64(data.count), accessToken: token) } throws: {
                ($0 as? GoogleDriveError)?.httpStatus == 416
            }

            let newer = GoogleDriveTestServer.bytes(1000, seed: 7)
            let updated = try await h.client.multipartUpload(
                GoogleDriveNewFile(name: file.name, modifiedTime: "2025-01-01T00:00:00Z"), fileID: file.id, bytes: newer, accessToken: token)
            #expect(updated.id == file.id && updated.headRevisionId != file.headRevisionId && updated.size == 1000)
            #expect(updated.modifiedTime == "2025-01-01T00:00:00.000Z")
            #expect(try await GoogleDriveTestServer.collect(try await h.client.download(id: file.id, accessToken: token)) == newer)

            let folder = try await h.client.createFolder(name: "Copies", parentID: "root", accessToken: token)
            let copy = try await h.client.copyFile(id: file.id, name: "copy.bin", parentID: folder.id, accessToken: token)
            #expect(copy.id != file.id && copy.parents == [folder.id] && copy.md5Checksum == updated.md5Checksum)
            try await h.client.deleteFile(id: file.id, accessToken: token)
            await #expect { try await h.client.getFile(id: file.id, accessToken: token) } throws: { ($0 as? GoogleDriveError)?.code == .notFound }
            #expect(try await GoogleDriveTestServer.collect(try await h.client.download(id: copy.id, accessToken: token)) == newer)
        }
    }

    @Test("Google Docs items are exported, not downloaded; binary files are not exported")
    func exports() async throws {
        try await GoogleDriveTestServer.run { h in
            let token = try await h.accessToken()
            var request = HTTPClientRequestFactory.json(h.baseURL + "/drive/v3/files", token: token, #"{"name":"Notes","mimeType":"application/vnd.google-apps.document"}"#)
            request.method = .POST
            let answer = try await h.http.execute(request, timeout: .seconds(60))
            let body = try await answer.body.collect(upTo: 1 << 20)
            let id = try #require(try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any])["id"] as? String
            let doc = try await h.client.getFile(id: try #require(id), accessToken: token)
            #expect(doc.isGoogleDocument && doc.size == nil && doc.md5Checksum == nil)
            let text = String(decoding: try await GoogleDriveTestServer.collect(try await h.client.export(id: doc.id, mimeType: "text/plain", accessToken: token)), as: UTF8.self)
            #expect(text.contains("Notes"))
            await #expect { try await h.client.download(id: doc.id, accessToken: token) } throws: {
                ($0 as? GoogleDriveError)?.code == .forbidden && ($0 as? GoogleDriveError)?.reason == "fileNotDownloadable"
            }
            await #expect { try await h.client.export(id: doc.id, mimeType: "image/png", accessToken: token) } throws: { ($0 as? GoogleDriveError)?.code == .badRequest }
            let binary = try await h.client.multipartUpload(GoogleDriveNewFile(name: "b", parentID: "root"), bytes: [1, 2], accessToken: token)
            await #expect { try await h.client.export(id: binary.id, mimeType: "text/plain", accessToken: token) } throws: { ($0 as? GoogleDriveError)?.code == .forbidden }
        }
    }

    @Test("rate limits come as 429 with Retry-After and as 403 rateLimitExceeded; both are .rateLimited")
    func rateLimits() async throws {
        try await GoogleDriveTestServer.run { h in
            let token = try await h.accessToken()
            h.server.updateFaults(FaultConfiguration(rateLimitRate: 1, retryAfterSeconds: 3, routes: ["drive/file"]))
            var seen: [(Int?, Double?)] = []
            for _ in 0..<2 {
                do {
                    _ = try await h.client.getFile(id: "root", accessToken: token)
                } catch let error as GoogleDriveError {
                    #expect(error.code == .rateLimited && error.isRetryable)
                    seen.append((error.httpStatus, error.retryAfter))
                }
            }
            #expect(seen.map(\.0) == [429, 403])
            #expect(seen.map(\.1) == [3, nil])
            h.server.updateFaults(.none)
            #expect(try await h.client.getFile(id: "root", accessToken: token).isFolder)
        }
    }
}
