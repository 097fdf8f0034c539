import FerryTestSupport
import Foundation
import FerryCore
import Testing

@Suite("Safe paths", .tags(.fast))
struct SafePathTests {
    @Test("unsafe components are refused", arguments: ["", ".", "..", "../etc", "a/b", "/etc", "a\u{0}b", "tab\tname", "del\u{7F}", String(repeating: "x", count: 256)])
    func unsafeComponents(_ name: String) {
        #expect(SafePath.component(name) == nil)
    }

    @Test("ordinary names, 255 bytes and non-ASCII are kept")
    func safeComponents() {
        for name in ["IMG_1000.jpg", "東京タワー.jpg", ".hidden", "..dots", String(repeating: "x", count: 255)] {
            #expect(SafePath.component(name) == name)
        }
        // 255 bytes, not 255 characters.
        #expect(SafePath.component(String(repeating: "é", count: 128)) == nil)
    }

    @Test("join keeps remote names inside the root")
    func join() {
        #expect(SafePath.join(root: "/srv/photos", relative: "a/b.jpg") == "/srv/photos/a/b.jpg")
        #expect(SafePath.join(root: "/srv/photos/", relative: "b.jpg") == "/srv/photos/b.jpg")
        for bad in ["../b.jpg", "a/../../b", "/etc/passwd", "a//b", "a/./b", "", "a\u{0}/b"] {
            #expect(SafePath.join(root: "/srv/photos", relative: bad) == nil, "\(bad)")
        }
    }

    @Test("isInside resolves . and .. lexically")
    func isInside() {
        #expect(SafePath.isInside("/srv/photos/a.jpg", root: "/srv/photos"))
        #expect(SafePath.isInside("/srv/photos/x/../a.jpg", root: "/srv/photos/"))
        #expect(!SafePath.isInside("/srv/photos/../etc/passwd", root: "/srv/photos"))
        #expect(!SafePath.isInside("/srv/photos", root: "/srv/photos"))
        #expect(!SafePath.isInside("/srv/photos2/a", root: "/srv/photos"))
        #expect(!SafePath.isInside("relative/a", root: "/srv"))
        #expect(!SafePath.isInside("/srv/a\u{0}b", root: "/srv"))
        #expect(SafePath.normalize("/a//b/./c/../d") == "/a/b/d")
    }

    @Test("file names from URLs are decoded and checked")
    func fromURL() {
        #expect(SafePath.fileName(fromURL: "https://example.com/p/IMG%201.jpg?sig=abc") == "IMG 1.jpg")
        #expect(SafePath.fileName(fromURL: "https://example.com/p/..%2F..%2Fetc") == nil)
        #expect(SafePath.fileName(fromURL: "https://example.com/p/%2E%2E") == nil)
        #expect(SafePath.fileName(fromURL: "https://example.com/") == nil)
    }

    @Test("temporary names: the whole job id, so jobs enqueued in the same minute never share one; always at most 255 bytes")
    func temporaryNames() throws {
        // Two UUIDv7 ids of the same millisecond share their first 8 hex digits (the time), never the whole id.
        let first = try #require(UUID(uuidString: "019ab000-0000-7000-8000-000000000001"))
        let second = try #require(UUID(uuidString: "019ab000-0000-7000-8000-000000000002"))
        #expect(SafePath.temporaryName(for: "a.jpg", jobID: first) == ".a.jpg.ferry-019ab000000070008000000000000001.part")
        #expect(SafePath.temporaryName(for: "a.jpg", jobID: first) != SafePath.temporaryName(for: "a.jpg", jobID: second))
        // A 255-byte name of 3-byte characters is cut on a character boundary.
        let long = String(repeating: "é", count: 127) + "x"
        let name = SafePath.temporaryName(for: long, jobID: first)
        #expect(name.utf8.count <= 255 && name.hasSuffix(".part") && name.hasPrefix(".éé"))
        #expect(SafePath.component(name) == name)
    }
}
