import FerryCore
import FerryTestSupport
import Foundation
import NIOCore
import Testing
@testable import FerryDropbox

@Suite("Listing, downloads and thumbnails", .tags(.fast))
struct ListAndDownloadTests {
    @Test("list_folder pages with limit and continue through a seeded folder")
    func paging() async throws {
        try await DropboxTestServer.run { t in
            let token = try await t.accessToken()
            try t.server.seedFiles(account: "alice", folder: "/seeded", count: 25, size: 100)

            var page = try await t.client.listFolder(path: "/seeded", recursive: false, limit: 10, accessToken: token)
            var sizes = [page.entries.count]
            var entries = page.entries
            while page.hasMore {
                page = try await t.client.listFolderContinue(cursor: page.cursor, accessToken: token)
                sizes.append(page.entries.count)
                entries += page.entries
            }
            #expect(sizes == [10, 10, 5])
            #expect(Set(entries.map(\.pathLower)).count == 25)
            for entry in entries {
                guard case .file(let file) = entry else {
                    Issue.record("expected only files, got \(entry)")
                    continue
                }
                #expect(file.size == 100)
                #expect(file.pathLower.hasPrefix("/seeded/"))
                #expect(file.contentHash?.count == 64)
            }

            // Once complete, the cursor follows changes.
            _ = try await t.client.uploadFile(commit: DropboxCommitInfo(path: "/seeded/new.txt"), contentHash: nil,
                                              body: .bytes(ByteBuffer(string: "new")), accessToken: token)
            let changes = try await t.client.listFolderContinue(cursor: page.cursor, accessToken: token)
            #expect(changes.entries.map(\.pathDisplay) == ["/seeded/new.txt"])

            // The root, given as "/", lists the folder.
            let root = try await t.client.listFolder(path: "/", recursive: false, limit: nil, accessToken: token)
            #expect(root.entries.contains { if case .folder(let lower, _, let id) = $0 { lower == "/seeded" && id != nil } else { false } })
            let recursive = try await t.client.listFolder(path: "", recursive: true, limit: 2000, accessToken: token)
            #expect(recursive.entries.count == 27)

            // An expired cursor is `reset`; garbage is a bad request, which a client must not take for a restart.
            t.server.resetCursors(account: "alice")
            let reset = await #expect(throws: DropboxError.self) {
                try await t.client.listFolderContinue(cursor: page.cursor, accessToken: token)
            }
            #expect(reset?.tags == ["reset"])
            #expect(reset?.isCursorReset == true)
            let garbage = await #expect(throws: DropboxError.self) {
                try await t.client.listFolderContinue(cursor: "garbage", accessToken: token)
            }
            #expect(garbage?.isCursorReset == false)
        }
    }

    @Test("download returns metadata and bytes; rangeStart returns the tail")
    func download() async throws {
        try await DropboxTestServer.run { t in
            let token = try await t.accessToken()
            try t.server.seedFiles(account: "alice", folder: "/dl", count: 1, size: 100)
            let path = "/dl/file-00000.bin"

            let whole = try await t.client.download(path: path, rangeStart: nil, accessToken: token)
            #expect(whole.status == 200)
            #expect(whole.contentRangeStart == nil)
            #expect(whole.contentLength == 100)
            #expect(whole.metadata?.pathLower == path)
            #expect(whole.metadata?.size == 100)
            #expect(whole.metadataJSON["name"]?.stringValue == "file-00000.bin")
            let bytes = try await TestData.collect(whole)
            #expect(bytes.count == 100)

            let tail = try await t.client.download(path: path, rangeStart: 60, accessToken: token)
            #expect(tail.status == 206)
            #expect(tail.contentRangeStart == 60)
            #expect(tail.contentLength == 40)
            #expect(tail.metadata == whole.metadata)
            #expect(try await TestData.collect(tail) == Array(bytes[60...]))

            let pastEnd = await #expect(throws: DropboxError.self) {
                try await t.client.download(path: path, rangeStart: 100, accessToken: token)
            }
            #expect(pastEnd?.code == .badRequest)
            #expect(pastEnd?.httpStatus == 416)

            let missing = await #expect(throws: DropboxError.self) {
                try await t.client.download(path: "/dl/nope.bin", rangeStart: nil, accessToken: token)
            }
            #expect(missing?.code == .pathError)
            #expect(missing?.tags == ["path", "not_found"])

            let notFound = await #expect(throws: DropboxError.self) {
                try await t.client.getMetadata(path: "/dl/nope.bin", accessToken: token)
            }
            #expect(notFound?.tags == ["path", "not_found"])
            #expect(try await t.client.getMetadata(path: "/dl", accessToken: token).pathDisplay == "/dl")
        }
    }

    @Test("get_thumbnail_v2 returns a real image and the file's metadata")
    func thumbnail() async throws {
        try await DropboxTestServer.run { t in
            let token = try await t.accessToken()
            // A JPEG header with a 640x480 frame (SOF0) is enough for Dropbox-style probing.
            var jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]
            jpeg += [0xFF, 0xC0, 0x00, 0x11, 0x08, 0x01, 0xE0, 0x02, 0x80, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01]
            jpeg += [UInt8](repeating: 0, count: 64) + [0xFF, 0xD9]
            _ = try await t.client.uploadFile(commit: DropboxCommitInfo(path: "/Pics/photo.jpg"), contentHash: nil,
                                              body: .bytes(ByteBuffer(bytes: jpeg)), accessToken: token)

            let thumb = try await t.client.getThumbnail(path: "/Pics/photo.jpg", size: "w256h256", format: "jpeg", mode: "bestfit", accessToken: token)
            let image = try await TestData.collect(thumb)
            #expect(thumb.status == 200)
            #expect(image.starts(with: [0xFF, 0xD8]))
            #expect(image.suffix(2) == [0xFF, 0xD9])
            #expect(thumb.contentType == "image/jpeg")
            #expect(thumb.metadata?.pathDisplay == "/Pics/photo.jpg")

            let png = try await t.client.getThumbnail(path: "/Pics/photo.jpg", size: "w64h64", format: "png", mode: "strict", accessToken: token)
            #expect(try await TestData.collect(png).starts(with: [0x89, 0x50, 0x4E, 0x47]))

            _ = try await t.client.uploadFile(commit: DropboxCommitInfo(path: "/Pics/notes.txt"), contentHash: nil,
                                              body: .bytes(ByteBuffer(string: "text")), accessToken: token)
            let unsupported = await #expect(throws: DropboxError.self) {
                try await t.client.getThumbnail(path: "/Pics/notes.txt", size: "w64h64", format: "jpeg", mode: "strict", accessToken: token)
            }
            #expect(unsupported?.tags == ["unsupported_extension"])
        }
    }
}
