import FerryCore
import FerryTestSupport
import Testing

@Suite("media types", .tags(.fast))
struct MediaTypeTests {
    @Test(
        "guessed from the extension, case-insensitive; unknown or none is octet-stream",
        arguments: [
            ("IMG_0001.JPG", "image/jpeg"), ("a/b/clip.mov", "video/quicktime"), ("x.heic", "image/heic"),
            ("notes.txt", "text/plain"), ("archive.tar.gz", "application/gzip"), ("README", "application/octet-stream"),
            (".jpg", "application/octet-stream"), ("file.unknownext", "application/octet-stream"),
        ])
    func guess(_ name: String, _ type: String) {
        #expect(MediaType.guess(forFileName: name) == type)
    }
}
