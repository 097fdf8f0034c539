import FerryTestSupport
import Foundation
import Testing
@testable import FerryDevServer

@Suite("Downloads and thumbnails", .tags(.fast))
struct DownloadTests {
    @Test("Range requests return 206 with Content-Range, or 416")
    func ranges() async throws {
        try await DevServerHarness.run { h in
            let token = try await h.accessToken()
            let data: [UInt8] = (0..<1000).map { UInt8($0 % 256) }
            _ = try await h.upload("/r.bin", data, token: token)

            let middle = try await h.download(#"{"path":"/r.bin"}"#, token: token, range: "bytes=100-199")
            #expect(middle.status == 206)
            #expect(middle.body == Array(data[100...199]))
            #expect(middle.header("Content-Range") == "bytes 100-199/1000")
            #expect(middle.apiResult["size"] as? Int == 1000)

            let suffix = try await h.download(#"{"path":"/r.bin"}"#, token: token, range: "bytes=-10")
            #expect(suffix.status == 206)
            #expect(suffix.body == Array(data[990...]))

            let open = try await h.download(#"{"path":"/r.bin"}"#, token: token, range: "bytes=900-")
            #expect(open.body == Array(data[900...]))

            let beyond = try await h.download(#"{"path":"/r.bin"}"#, token: token, range: "bytes=5000-")
            #expect(beyond.status == 416)
            #expect(beyond.header("Content-Range") == "bytes */1000")

            #expect(h.server.stats().bytesSent == 100 + 10 + 100)
        }
    }

    /// A PNG header claiming 400x300 is enough for the server to accept the source.
    static let sourcePNG: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
        + [0, 0, 0x01, 0x90, 0, 0, 0x01, 0x2C, 8, 2, 0, 0, 0, 0, 0, 0, 0]

    @Test("get_thumbnail_v2 returns a real image of the requested format with metadata")
    func thumbnails() async throws {
        try await DevServerHarness.run { h in
            let token = try await h.accessToken()
            _ = try await h.upload("/pics/photo.png", Self.sourcePNG, token: token)
            _ = try await h.upload("/pics/notes.txt", Array("hello".utf8), token: token)

            let png = try await h.content("files/get_thumbnail_v2", token: token,
                                          arg: #"{"resource":{".tag":"path","path":"/pics/photo.png"},"format":"png","size":"w64h64","mode":"bestfit"}"#)
            #expect(png.status == 200)
            #expect(png.header("Content-Type") == "image/png")
            #expect(Array(png.body.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            // IHDR: 64x48 keeps the 4:3 aspect ratio of the 400x300 source.
            #expect(Array(png.body[16..<24]) == [0, 0, 0, 64, 0, 0, 0, 48])
            #expect((png.apiResult["file_metadata"] as? [String: Any])?["name"] as? String == "photo.png")

            let jpeg = try await h.content("files/get_thumbnail_v2", token: token,
                                           arg: #"{"resource":{".tag":"path","path":"/pics/photo.png"},"format":{".tag":"jpeg"},"size":{".tag":"w128h128"},"mode":"strict"}"#)
            #expect(jpeg.status == 200)
            #expect(jpeg.header("Content-Type") == "image/jpeg")
            #expect(Array(jpeg.body.prefix(2)) == [0xFF, 0xD8])
            #expect(Array(jpeg.body.suffix(2)) == [0xFF, 0xD9])
            // strict fits inside the box, keeping the aspect ratio (it never fills the box).
            let probe = ImageProbe.probe(jpeg.body)
            #expect(probe?.width == 128 && probe?.height == 96)

            let text = try await h.content("files/get_thumbnail_v2", token: token,
                                           arg: #"{"resource":{".tag":"path","path":"/pics/notes.txt"}}"#)
            #expect(text.status == 409)
            #expect(text.errorTag == "unsupported_extension")
        }
    }
}
