import FerryTestSupport
import Foundation
import Testing

@testable import FerryWorker

/// Remote listings are untrusted: no listed name may place a file outside the fetch's folder.
@Suite("Dropbox child paths", .tags(.fast))
struct DropboxChildPathTests {
    let root = "/srv/fetch/out/"

    func target(_ folder: String, _ lower: String, _ display: String) -> String? {
        DropboxChildPath.target(root: root, folderLower: folder, pathLower: lower, pathDisplay: display)
    }

    @Test("entries under the listed folder keep their display names and sub-folders")
    func safeEntries() {
        #expect(target("/camera", "/camera/img_1.jpg", "/Camera/IMG_1.jpg") == "/srv/fetch/out/IMG_1.jpg")
        #expect(target("/camera", "/camera/2026/a b.jpg", "/CAMERA/2026/a b.jpg") == "/srv/fetch/out/2026/a b.jpg")
        #expect(target("", "/top.txt", "/Top.txt") == "/srv/fetch/out/Top.txt")
        #expect(target("/camera/", "/camera/x", "/Camera/x") == "/srv/fetch/out/x")
    }

    @Test("dot-dot, absolute, control characters, empty parts and entries outside the folder are refused")
    func unsafeEntries() {
        #expect(target("/camera", "/camera/../etc/passwd", "/Camera/../etc/passwd") == nil)
        #expect(target("/camera", "/camera/..", "/Camera/..") == nil)
        #expect(target("/camera", "/camera/.", "/Camera/.") == nil)
        #expect(target("/camera", "/camera/a\u{0}b", "/Camera/a\u{0}b") == nil)
        #expect(target("/camera", "/camera/a\nb.jpg", "/Camera/a\nb.jpg") == nil)
        #expect(target("/camera", "/camera/a\u{7F}", "/Camera/a\u{7F}") == nil)
        #expect(target("/camera", "/camera//x", "/Camera//x") == nil)
        #expect(target("/camera", "/cameras/x", "/Cameras/x") == nil, "a sibling sharing the prefix is not inside")
        #expect(target("/camera", "/other/x", "/Other/x") == nil)
        #expect(target("/camera", "", "") == nil, "no path (outside the user's tree)")
        #expect(target("/camera", "/camera/a/b", "/Camera/a") == nil, "display and lower paths disagree")
        #expect(target("/camera", "/camera/x", "Camera/x") == nil, "relative display path")
        #expect(target("/camera", "/camera/" + String(repeating: "n", count: 256), "/Camera/" + String(repeating: "n", count: 256)) == nil)
    }

    @Test("only image extensions become thumbnail children")
    func images() {
        for name in ["a.jpg", "b.JPEG", "c.png", "d.tif", "e.tiff", "f.gif", "g.webp", "h.ppm", "i.bmp", "j.HEIC"] {
            #expect(DropboxChildPath.isImage(name), "\(name)")
        }
        for name in ["a.txt", "b.bin", "jpg", ".png", "c.jpg.zip", "noext"] {
            #expect(!DropboxChildPath.isImage(name), "\(name)")
        }
    }

    @Test("a thumbnail's local name ends in .jpg, appended so that two sources never share a name")
    func thumbnailNames() {
        #expect(DropboxChildPath.thumbnailPath("/in/a.png") == "/in/a.png.jpg")
        #expect(DropboxChildPath.thumbnailPath("/in/a.heic") == "/in/a.heic.jpg")
        #expect(DropboxChildPath.thumbnailPath("/in/a.jpg") == "/in/a.jpg")
        #expect(DropboxChildPath.thumbnailPath("/in/b.JPEG") == "/in/b.JPEG")
        #expect(DropboxChildPath.thumbnailPath("/in.d/noext") == "/in.d/noext.jpg")
    }

    @Test("child idempotency keys are per parent and path_lower, and short")
    func keys() {
        let parent = UUID()
        let long = "/" + String(repeating: "x/", count: 2000) + "file"
        let key = DropboxFolderFanOut.idempotencyKey(parent: parent, pathLower: long)
        #expect(key.utf8.count <= 255)
        #expect(key.hasPrefix(parent.uuidString.lowercased() + "/"))
        #expect(key == DropboxFolderFanOut.idempotencyKey(parent: parent, pathLower: long))
        #expect(key != DropboxFolderFanOut.idempotencyKey(parent: UUID(), pathLower: long))
        #expect(key != DropboxFolderFanOut.idempotencyKey(parent: parent, pathLower: "/a"))
    }
}
