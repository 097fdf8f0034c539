import FerryTestSupport
import Testing
@testable import FerryDevServer

@Suite("Thumbnail modes and errors", .tags(.fast))
struct ThumbnailTests {
    /// The start of a PNG (signature and IHDR) with the given size: all the dev server reads of a source.
    static func pngHeader(width: Int, height: Int) -> [UInt8] {
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + Array("IHDR".utf8) + be32(width) + be32(height)
            + [8, 0, 0, 0, 0] + [0, 0, 0, 0]
    }

    static func size(_ png: [UInt8]) -> (Int, Int)? {
        guard let probe = ImageProbe.probe(png), let width = probe.width, let height = probe.height else { return nil }
        return (width, height)
    }

    @Test("strict fits the box, bestfit the box or its transpose, fitone_bestfit covers one of them", arguments: [
        // A 500x1000 portrait into 480x320: strict is limited by the height; turned 90°, the box lets it be larger.
        ("strict", "w480h320", 160, 320),
        ("bestfit", "w480h320", 240, 480),
        ("fitone_bestfit", "w480h320", 320, 640),
        ("strict", "w64h64", 32, 64),
        ("bestfit", "w64h64", 32, 64),
        // Never scaled up.
        ("fitone_bestfit", "w2048h1536", 500, 1000),
    ])
    func modes(mode: String, size: String, width: Int, height: Int) async throws {
        try await DevServerHarness.run { h in
            let token = try await h.accessToken()
            _ = try await h.upload("/tall.png", Self.pngHeader(width: 500, height: 1000), token: token)
            let result = try await h.content("files/get_thumbnail_v2", token: token,
                                             arg: #"{"resource":{".tag":"path","path":"/tall.png"},"format":"png","size":"\#(size)","mode":"\#(mode)"}"#)
            #expect(result.status == 200, "\(result.text)")
            let got = try #require(Self.size(result.body))
            #expect(got == (width, height))
        }
    }

    @Test("the sizing rules on their own, for a landscape source too")
    func dimensions() {
        let landscape = ImageProbe(format: .png, width: 1000, height: 500)
        #expect(DevServerResponder.thumbnailDimensions(box: (480, 320), source: landscape, mode: "strict") == (480, 240))
        #expect(DevServerResponder.thumbnailDimensions(box: (480, 320), source: landscape, mode: "bestfit") == (480, 240))
        #expect(DevServerResponder.thumbnailDimensions(box: (480, 320), source: landscape, mode: "fitone_bestfit") == (640, 320))
        // A source whose size is unknown gets the box.
        #expect(DevServerResponder.thumbnailDimensions(box: (64, 64), source: ImageProbe(format: .webp), mode: "strict") == (64, 64))
    }

    @Test("bytes that are no image are unsupported_image; a cut-off image header is conversion_error")
    func errors() async throws {
        try await DevServerHarness.run { h in
            let token = try await h.accessToken()
            _ = try await h.upload("/fake.jpg", Array("not an image at all".utf8), token: token)
            _ = try await h.upload("/cut.png", Array(Self.pngHeader(width: 10, height: 10).prefix(12)), token: token)
            let fake = try await h.content("files/get_thumbnail_v2", token: token, arg: #"{"resource":{".tag":"path","path":"/fake.jpg"}}"#)
            #expect(fake.status == 409)
            #expect(fake.errorTag == "unsupported_image")
            #expect(fake.errorSummary.hasPrefix("unsupported_image/"))
            let cut = try await h.content("files/get_thumbnail_v2", token: token, arg: #"{"resource":{".tag":"path","path":"/cut.png"}}"#)
            #expect(cut.errorTag == "conversion_error")
            let v1 = try await h.content("files/get_thumbnail", token: token, arg: #"{"path":"/fake.jpg"}"#)
            #expect(v1.errorTag == "unsupported_image")
        }
    }
}
