import Foundation
import Testing
@testable import FerryDevServer

@Suite("Internal building blocks")
struct DevServerInternalsTests {
    @Test("JSON parsing handles \\u escapes, surrogate pairs and exact integers")
    func parsing() throws {
        let value = try JSONValue.parse(#"{"path":"/\u00c9t\u00e9 \ud83d\ude00","offset":1099511627776,"close":true,"x":null}"#)
        #expect(value["path"]?.stringValue == "/Été 😀")
        #expect(value["offset"]?.int64Value == 1_099_511_627_776)
        #expect(value["close"]?.boolValue == true)
        #expect(value["x"]?.isNull == true)
        #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse(#"{"a":1} x"#) }
        #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse(#""\ud83d""#) }
    }

    @Test("ASCII-only serialization escapes non-ASCII for HTTP headers")
    func serialization() {
        let value = JSONValue.object([("name", .string("Été 😀\n"))])
        #expect(value.serialized(asciiOnly: true) == #"{"name":"\u00c9t\u00e9 \ud83d\ude00\n"}"#)
        #expect(value.serialized() == "{\"name\":\"Été 😀\\n\"}")
    }

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
        let first = (0..<100).map { _ in a.decide(route: "files/upload", isCommit: true, isOAuth: false) }
        let second = (0..<100).map { _ in b.decide(route: "files/upload", isCommit: true, isOAuth: false) }
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
}
