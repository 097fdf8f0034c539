import FerryTestSupport
import Foundation
import Testing
@testable import FerryDevServer

@Suite("Internal building blocks", .tags(.fast))
struct DevServerInternalsTests {
    @Test("content hash of an empty input and across the 4 MiB block boundary")
    func contentHash() {
        #expect(ContentHasher().finalize() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        var hasher = ContentHasher()
        // Fed in odd-sized pieces so block boundaries fall inside updates.
        var index = 0
        while index < UploadTests.bigData.count {
            let end = min(index + 1_000_003, UploadTests.bigData.count)
            UploadTests.bigData[index..<end].withUnsafeBytes { hasher.update($0) }
            index = end
        }
        #expect(hasher.finalize() == UploadTests.bigDataHash)
    }

    @Test("the fault PRNG replays from its seed")
    func seededFaults() {
        let a = FaultInjector(FaultConfiguration(seed: 11, failureRate: 0.3, dropRate: 0.3))
        let b = FaultInjector(FaultConfiguration(seed: 11, failureRate: 0.3, dropRate: 0.3))
        let first = (0..<100).map { _ in a.decide(route: "files/upload", kind: .commit, isOAuth: false) }
        let second = (0..<100).map { _ in b.decide(route: "files/upload", kind: .commit, isOAuth: false) }
        #expect(first == second)
        #expect(first.contains(.drop) && first.contains(.none))
    }

    @Test("Range header resolution")
    func ranges() {
        #expect(ByteRange.resolve("bytes=0-9", size: 100) == .partial(ByteRange(start: 0, end: 9)))
        #expect(ByteRange.resolve("bytes=90-200", size: 100) == .partial(ByteRange(start: 90, end: 99)))
        #expect(ByteRange.resolve("bytes=-5", size: 100) == .partial(ByteRange(start: 95, end: 99)))
        #expect(ByteRange.resolve("bytes=100-", size: 100) == .unsatisfiable)
        #expect(ByteRange.resolve("bytes=0-1,5-6", size: 100) == .whole)
        #expect(ByteRange.resolve(nil, size: 100) == .whole)
    }

    @Test("fault settings decode from snake_case or Swift names, keeping defaults")
    func faultDecoding() throws {
        let json = #"{"failureRate":0.5,"drop_rate":0.25,"routes":["files/upload"]}"#
        let decoded = try JSONDecoder().decode(FaultConfiguration.self, from: Data(json.utf8))
        #expect(decoded.failureRate == 0.5)
        #expect(decoded.dropRate == 0.25)
        #expect(decoded.routes == ["files/upload"])
        #expect(decoded.retryAfterSeconds == 1)
        #expect(decoded.includeOAuth == false)
    }

    @Test("HTTP dates format and parse as IMF-fixdate")
    func httpDates() {
        #expect(HTTPDate.format(epochSeconds: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(epochSeconds: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(epochSeconds: 1_709_164_800) == "Thu, 29 Feb 2024 00:00:00 GMT")
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        for seconds: Int64 in [0, 951_782_400, 1_700_000_000, 4_102_444_799] {
            #expect(HTTPDate.parse(HTTPDate.format(epochSeconds: seconds)) == seconds)
        }
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == nil)
        #expect(HTTPDate.parse("\"etag\"") == nil)
    }

    @Test("JPEG bit writer packs MSB first and stuffs 0xFF bytes")
    func jpegBits() {
        var bits = JPEGBitWriter()
        bits.write(0xFF, count: 8)
        bits.write(0b101, count: 3)
        bits.flush()
        #expect(bits.bytes == [0xFF, 0x00, 0b1011_1111])
    }

    @Test("photos are deterministic and differ per index; sizes follow the suffix")
    func flickrPhotos() {
        let a = FlickrPhoto.generate(userID: "1@N01", index: 0)
        #expect(a == FlickrPhoto.generate(userID: "1@N01", index: 0))
        let b = FlickrPhoto.generate(userID: "1@N01", index: 1)
        #expect(a.id != b.id && a.secret != b.secret)
        #expect(Int(a.id)! > Int(b.id)!, "newer photos have larger ids")
        #expect(a.secret.count == 10)
        let jpeg = ThumbnailRenderer.photo(width: 640, height: 480, seed: a.pixelSeed)
        #expect(ImageProbe.probe(jpeg) == ImageProbe(format: .jpeg, width: 640, height: 480))
        #expect(jpeg != ThumbnailRenderer.photo(width: 640, height: 480, seed: b.pixelSeed))
        #expect(a.dimensions(suffix: "s").map { [$0.width, $0.height] } == [75, 75])
        #expect(a.dimensions(suffix: "x") == nil)
    }

    @Test("statistics decode without the newer keys; new keys are snake_case")
    func statsCoding() throws {
        let old = try JSONDecoder().decode(DevServerStats.self, from: Data(#"{"bytes_sent":5,"files_committed":2}"#.utf8))
        #expect(old.bytesSent == 5 && old.filesCommitted == 2 && old.webRangeStartsPerPath.isEmpty)
        var stats = DevServerStats()
        stats.webRangeStartsPerPath["/web/a"] = [0, 10]
        stats.flickrCallsPerMethod["flickr.people.getPublicPhotos"] = 1
        let json = String(decoding: try JSONEncoder().encode(stats), as: UTF8.self)
        #expect(json.contains(#""web_range_starts_per_path":{"#))
        #expect(json.contains("flickr_calls_per_method") && json.contains("flickr_photo_downloads_per_path"))
        #expect(try JSONDecoder().decode(DevServerStats.self, from: Data(json.utf8)) == stats)

        let faults = try JSONDecoder().decode(FaultConfiguration.self, from: Data(#"{"download_bytes_per_second":4096,"upload_bytes_per_second":2048}"#.utf8))
        #expect(faults.downloadBytesPerSecond == 4096)
        #expect(faults.uploadBytesPerSecond == 2048)
    }

    @Test("the sorted key index stays ordered through single inserts and bulk seeding")
    func namespaceOrder() {
        var namespace = AccountNamespace(root: "/tmp/unused")
        var sequence: UInt64 = 0
        func file(_ path: String) -> FileEntry {
            sequence += 1
            return FileEntry(kind: .file, pathDisplay: path, id: "id:" + path, sequence: sequence)
        }
        namespace.upsert(FileEntry(kind: .folder, pathDisplay: "/d", id: "id:d", sequence: 0))
        namespace.upsert(file("/d/b"))
        #expect(namespace.listPage(folderLower: "/d", recursive: false, after: nil, limit: 10).entries.map(\.name) == ["b"])
        namespace.upsert(file("/d/a"))
        namespace.upsert(file("/d/c"))
        namespace.upsert(contentsOf: (0..<100).map { file("/d/z\($0)") })
        let page = namespace.listPage(folderLower: "/d", recursive: false, after: nil, limit: 1000)
        #expect(page.entries.map(\.name).prefix(3) == ["a", "b", "c"])
        #expect(page.entries.count == 103)
    }

    @Test("file ids stay the unpadded base64url of SHA-256(account NUL path_lower), so they survive upgrades")
    func stableIDs() {
        #expect(FileStore.makeID(account: "alice", lower: "/keep/x.txt") == "id:tajlRavEYw42vVd_vE_q4g")
        #expect(FileStore.makeID(account: "alice", lower: "/a/b") == "id:IZTcf8RBU2Lx5fb6Q0gXqA")
    }
}
