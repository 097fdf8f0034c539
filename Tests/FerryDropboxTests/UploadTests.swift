import FerryCore
import FerryTestSupport
import Foundation
import NIOCore
import Testing
@testable import FerryDropbox

@Suite("Uploads", .tags(.fast))
struct UploadTests {
    @Test("a non-ASCII path travels in Dropbox-API-Arg and comes back unchanged")
    func nonASCIIPath() async throws {
        try await DropboxTestServer.run { t in
            let token = try await t.accessToken()
            let path = "/Fotos/Größe 😀.jpg"
            let uploaded = try await t.client.uploadFile(
                commit: DropboxCommitInfo(path: path), contentHash: nil, body: .bytes(ByteBuffer(string: "pixels")), accessToken: token)
            #expect(uploaded.pathDisplay == path)
            #expect(uploaded.name == "Größe 😀.jpg")
            #expect(uploaded.pathLower == "/fotos/größe 😀.jpg")
            let entry = try await t.client.getMetadata(path: path, accessToken: token)
            guard case .file(let file) = entry else {
                Issue.record("expected a file, got \(entry)")
                return
            }
            #expect(file.pathDisplay == path)
            #expect(file.id == uploaded.id)
            #expect(file.size == 6)
            #expect(entry.pathDisplay == path)
            // The header form is pure ASCII (the emoji as a surrogate pair).
            let arg = DropboxCommitInfo(path: path).json.asciiJSONText
            #expect(arg.utf8.allSatisfy { $0 < 0x7F })
            #expect(arg.contains("\\ud83d\\ude00"))
        }
    }

    @Test("start, append_v2 and finish with streamed chunks build the file")
    func session() async throws {
        try await DropboxTestServer.run { t in
            let token = try await t.accessToken()
            let data = TestData.bytes(5 * 1024 * 1024 + 321, seed: 7)
            let cuts = [0, 1_048_576, 3_000_000, 5_000_000, data.count]
            let chunks = (0..<cuts.count - 1).map { Array(data[cuts[$0]..<cuts[$0 + 1]]) }

            let session = try await t.client.uploadSessionStart(close: false, body: TestData.stream(chunks[0], piece: 10_000), accessToken: token)
            #expect(!session.isEmpty)
            var offset = Int64(chunks[0].count)
            for chunk in chunks[1..<(chunks.count - 1)] {
                try await t.client.uploadSessionAppend(sessionID: session, offset: offset, close: false, body: TestData.stream(chunk, piece: 77_777), accessToken: token)
                offset += Int64(chunk.count)
            }
            var lastHash = DropboxContentHasher()
            lastHash.update(chunks.last!)
            let modified = Date(timeIntervalSince1970: 1_700_000_000.75)
            let file = try await t.client.uploadSessionFinish(
                sessionID: session, offset: offset,
                commit: DropboxCommitInfo(path: "/sessions/five.bin", mode: .overwrite, clientModified: modified),
                contentHash: lastHash.finalize(), body: TestData.stream(chunks.last!), accessToken: token)
            #expect(file.size == Int64(data.count))
            #expect(file.pathDisplay == "/sessions/five.bin")
            #expect(file.contentHash == TestData.referenceHash(data))
            #expect(file.clientModified == "2023-11-14T22:13:20Z")

            let download = try await t.client.download(path: file.id, rangeStart: nil, accessToken: token)
            #expect(try await TestData.collect(download) == data)
        }
    }

    @Test("a wrong offset reports the session's correct offset, for append and for finish")
    func incorrectOffset() async throws {
        try await DropboxTestServer.run { t in
            let token = try await t.accessToken()
            let session = try await t.client.uploadSessionStart(close: false, body: .bytes(ByteBuffer(string: "0123456789")), accessToken: token)

            let append = await #expect(throws: DropboxError.self) {
                try await t.client.uploadSessionAppend(sessionID: session, offset: 4, close: false, body: .bytes(ByteBuffer(string: "abc")), accessToken: token)
            }
            #expect(append?.code == .pathError)
            #expect(append?.httpStatus == 409)
            #expect(append?.tags == ["incorrect_offset"])
            #expect(append?.correctOffset == 10)
            #expect(append?.isRetryable == false)

            let finish = await #expect(throws: DropboxError.self) {
                try await t.client.uploadSessionFinish(
                    sessionID: session, offset: 3, commit: DropboxCommitInfo(path: "/offset.txt"), contentHash: nil,
                    body: .bytes(ByteBuffer()), accessToken: token)
            }
            #expect(finish?.tags == ["lookup_failed", "incorrect_offset"])
            #expect(finish?.tag("lookup_failed") == true)
            #expect(finish?.correctOffset == 10)

            // Resuming at the reported offset works.
            let file = try await t.client.uploadSessionFinish(
                sessionID: session, offset: 10, commit: DropboxCommitInfo(path: "/offset.txt"), contentHash: nil,
                body: .bytes(ByteBuffer(string: "!")), accessToken: token)
            #expect(file.size == 11)

            let missing = await #expect(throws: DropboxError.self) {
                try await t.client.uploadSessionAppend(sessionID: "no-such-session", offset: 0, close: false, body: .bytes(ByteBuffer()), accessToken: token)
            }
            #expect(missing?.tags == ["not_found"])
            #expect(missing?.correctOffset == nil)
        }
    }

    @Test("finish_batch_v2 commits three closed sessions and reports per-entry failures")
    func finishBatch() async throws {
        try await DropboxTestServer.run { t in
            let token = try await t.accessToken()
            var entries: [(sessionID: String, offset: Int64, commit: DropboxCommitInfo)] = []
            for index in 0..<3 {
                let data = TestData.bytes(1000 + index, seed: UInt64(index + 1))
                let session = try await t.client.uploadSessionStart(close: true, body: TestData.stream(data, piece: 333), accessToken: token)
                entries.append((session, Int64(data.count), DropboxCommitInfo(path: "/batch/file-\(index).bin")))
            }
            let results = try await t.client.uploadSessionFinishBatch(entries, accessToken: token)
            #expect(results.count == 3)
            for (index, result) in results.enumerated() {
                let file = try result.get()
                #expect(file.pathDisplay == "/batch/file-\(index).bin")
                #expect(file.size == Int64(1000 + index))
                #expect(file.contentHash == TestData.referenceHash(TestData.bytes(1000 + index, seed: UInt64(index + 1))))
            }

            // An open session and a conflicting path fail on their own, the good entry succeeds.
            let open = try await t.client.uploadSessionStart(close: false, body: .bytes(ByteBuffer(string: "open")), accessToken: token)
            let closed = try await t.client.uploadSessionStart(close: true, body: .bytes(ByteBuffer(string: "different")), accessToken: token)
            let good = try await t.client.uploadSessionStart(close: true, body: .bytes(ByteBuffer(string: "good")), accessToken: token)
            let mixed = try await t.client.uploadSessionFinishBatch([
                (open, 4, DropboxCommitInfo(path: "/batch/open.txt")),
                (closed, 9, DropboxCommitInfo(path: "/batch/file-0.bin")),
                (good, 4, DropboxCommitInfo(path: "/batch/good.txt")),
            ], accessToken: token)
            #expect(mixed.count == 3)
            if case .failure(let error) = mixed[0] {
                #expect(error.tags == ["lookup_failed", "not_closed"])
                #expect(error.code == .pathError)
            } else {
                Issue.record("open session should fail")
            }
            if case .failure(let error) = mixed[1] {
                #expect(error.tags == ["path", "conflict", "file"])
                #expect(error.tag("path", "conflict"))
            } else {
                Issue.record("conflicting path should fail")
            }
            #expect((try? mixed[2].get())?.pathDisplay == "/batch/good.txt")
        }
    }

    @Test("files/upload of a small file, content_hash checks and conflicts")
    func smallUpload() async throws {
        try await DropboxTestServer.run { t in
            let token = try await t.accessToken()
            let data = Array("hello, dropbox".utf8)
            var hasher = DropboxContentHasher()
            hasher.update(data)
            let file = try await t.client.uploadFile(
                commit: DropboxCommitInfo(path: "/small/hello.txt"), contentHash: hasher.finalize(),
                body: .bytes(ByteBuffer(bytes: data)), accessToken: token)
            #expect(file.size == Int64(data.count))
            #expect(file.name == "hello.txt")
            #expect(file.id.hasPrefix("id:"))
            #expect(!file.rev.isEmpty)
            #expect(file.contentHash == hasher.finalize())

            let mismatch = await #expect(throws: DropboxError.self) {
                try await t.client.uploadFile(
                    commit: DropboxCommitInfo(path: "/small/other.txt"), contentHash: String(repeating: "0", count: 64),
                    body: .bytes(ByteBuffer(bytes: data)), accessToken: token)
            }
            #expect(mismatch?.tags == ["content_hash_mismatch"])

            let conflict = await #expect(throws: DropboxError.self) {
                try await t.client.uploadFile(
                    commit: DropboxCommitInfo(path: "/small/hello.txt"), contentHash: nil,
                    body: .bytes(ByteBuffer(string: "something else")), accessToken: token)
            }
            #expect(conflict?.code == .pathError)
            #expect(conflict?.tags == ["path", "conflict", "file"])

            // update mode with the current rev replaces the file.
            let updated = try await t.client.uploadFile(
                commit: DropboxCommitInfo(path: "/small/hello.txt", mode: .update(file.rev)), contentHash: nil,
                body: .bytes(ByteBuffer(string: "v2")), accessToken: token)
            #expect(updated.size == 2)
            #expect(updated.rev != file.rev)
        }
    }

    @Test("CommitInfo JSON has Dropbox's field names, union encoding and whole-second timestamps")
    func commitInfoJSON() {
        let info = DropboxCommitInfo(
            path: "/a.txt", mode: .update("0123456789abcdef"), autorename: true,
            clientModified: Date(timeIntervalSince1970: 951_782_400.999), mute: true, strictConflict: true)
        #expect(info.json == .object([
            "path": .string("/a.txt"),
            "mode": .object([".tag": .string("update"), "update": .string("0123456789abcdef")]),
            "autorename": .bool(true),
            "client_modified": .string("2000-02-29T00:00:00Z"),
            "mute": .bool(true),
            "strict_conflict": .bool(true),
        ]))
        #expect(DropboxCommitInfo(path: "/b").json["client_modified"] == nil)
        #expect(DropboxCommitInfo(path: "/b").json["mode"] == .object([".tag": .string("add")]))
        #expect(DropboxCommitInfo.Mode.overwrite.json == .object([".tag": .string("overwrite")]))
        #expect(DropboxTimestamp.format(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59Z")
    }
}
