import FerryCore
import FerryProviders
import FerryStore
import FerryTestSupport
import Foundation
import NIOCore
import Postgres
import Testing
@testable import FerryWorker

@Suite("URL fetch helpers", .tags(.fast))
struct FetchHelperTests {
    @Test("Content-Range parses start, end and total; malformed ones are refused")
    func contentRange() {
        // Equal values compare equal and different ones do not (nil == nil would pass the first alone).
        #expect(ContentRange("bytes 100-199/1000") != nil && ContentRange("bytes 100-199/1000") == ContentRange("bytes 100-199/1000"))
        #expect(ContentRange("bytes 100-199/1000") != ContentRange("bytes 100-199/1001"))
        let range = ContentRange("bytes 100-199/1000")
        #expect(range?.start == 100 && range?.end == 199 && range?.total == 1000)
        #expect(ContentRange("bytes 5-9/*")?.total == nil)
        for bad in [nil, "", "bytes */1000", "items 1-2/3", "bytes 9-5/10", "bytes 0-10/10", "bytes a-b/c"] {
            #expect(ContentRange(bad) == nil, "\(bad ?? "nil")")
        }
    }

    @Test("the cursor round-trips through its session JSON and picks a usable If-Range validator")
    func cursor() throws {
        let cursor = FetchCursor(temp: "/d/.f.ferry-1.part", offset: 8_388_608, etag: "\"abc\"", lastModified: "Sat, 21 Nov 2026 10:00:00 GMT", length: 25_000_000)
        #expect(FetchCursor(session: cursor.json.jsonText) == cursor)
        #expect(cursor.validator == "\"abc\"")
        var weak = cursor
        weak.etag = "W/\"abc\""
        #expect(weak.validator == "Sat, 21 Nov 2026 10:00:00 GMT", "weak ETags are not allowed in If-Range")
        weak.lastModified = nil
        #expect(weak.validator == nil)
        #expect(FetchCursor(session: #"{"upload_session_id":"x","offset":5}"#) == nil)
        #expect(FetchCursor(session: nil) == nil)
    }

    @Test("URLs are shown without query, fragment or user info")
    func displayURL() {
        #expect(DisplayURL.of("https://cdn.example.com/a/b.jpg?X-Amz-Signature=s3cr3t#frag") == "https://cdn.example.com/a/b.jpg")
        #expect(DisplayURL.of("https://user:pw@example.com/x") == "https://example.com/x")
        #expect(DisplayURL.of("http://example.com") == "http://example.com")
    }

    @Test("statuses map to permanent, retryable and rate-limited failures")
    func statuses() {
        typealias Attempt = HTTPFetchHandler.Attempt
        #expect(Attempt.failure(status: 404, retryAfter: nil, shown: "u").kind == .permanent)
        #expect(Attempt.failure(status: 410, retryAfter: nil, shown: "u").kind == .permanent)
        #expect(Attempt.failure(status: 403, retryAfter: nil, shown: "u").kind == .permanent)
        #expect(Attempt.failure(status: 408, retryAfter: nil, shown: "u").kind == .retryable)
        #expect(Attempt.failure(status: 502, retryAfter: nil, shown: "u").kind == .retryable)
        let before = Date()
        guard case .rateLimited(let until) = Attempt.failure(status: 429, retryAfter: "120", shown: "u").kind else {
            Issue.record("429 is a rate limit")
            return
        }
        #expect(until.timeIntervalSince(before) >= 119 && until.timeIntervalSince(before) < 200)
        guard case .rateLimited(let fallback) = Attempt.failure(status: 429, retryAfter: nil, shown: "u").kind else {
            Issue.record("429 is a rate limit")
            return
        }
        #expect(fallback.timeIntervalSince(before) >= 29, "30 s without Retry-After")
    }

    @Test("Retry-After takes seconds or an HTTP date")
    func retryAfter() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)  // Tue, 14 Nov 2023 22:13:20 GMT
        #expect(HTTPRetryAfter.seconds("17", now: now) == 17)
        #expect(HTTPRetryAfter.seconds("Tue, 14 Nov 2023 22:14:20 GMT", now: now) == 60)
        #expect(HTTPRetryAfter.seconds("Tue, 14 Nov 2023 22:00:00 GMT", now: now) == 0, "a past date means now")
        #expect(HTTPRetryAfter.seconds("soon", now: now) == nil)
        #expect(HTTPRetryAfter.seconds(nil, now: now) == nil)
    }

    @Test("received pieces are written back to back at an offset in one pwritev: slices, empty pieces and a large batch")
    func gatherWrite() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-gather-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try OwnedFile(path: path, flags: O_RDWR | O_CREAT, mode: 0o600)
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<300_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        // Slices of one buffer (as a decoder hands them over), with an empty one and uneven sizes.
        let whole = ByteBuffer(bytes: bytes)
        var pieces = [ByteBuffer]()
        var start = 0
        for size in [1, 0, 65_536, 7, 100_000, 0, 34_456, 100_000] {
            pieces.append(whole.getSlice(at: start, length: size)!)
            start += size
        }
        #expect(start == bytes.count)
        try file.write([ByteBuffer(bytes: [9, 9, 9])], at: 0)
        try file.write(pieces, at: 3)
        #expect(try file.read(at: 0, count: 3 + bytes.count + 1) == [9, 9, 9] + bytes)
        // 64 pieces, the most one write takes.
        let many = (0..<64).map { ByteBuffer(bytes: [UInt8]($0 % 2 == 0 ? bytes[0..<4096] : bytes[4096..<4097])) }
        try file.write(many, at: 0)
        let expected = (0..<64).flatMap { $0 % 2 == 0 ? Array(bytes[0..<4096]) : [bytes[4096]] }
        #expect(try file.read(at: 0, count: expected.count) == expected)
    }

    @Test("a Dropbox fetch asking for a thumbnail and a sha256 (a retry added one to the other) fails for good, naming both")
    func thumbnailWithChecksum() throws {
        func job(_ spec: String) -> ClaimedJob {
            let now = PostgresTimestamp(Date())
            return ClaimedJob(
                jobID: UUID(), lease: 1, attempt: 1, maxAttempts: 3, kind: .fetch, queue: "default", source: "dropbox:box/a.jpg",
                destination: "/srv/a.jpg", account: "box", spec: spec, enqueuedAt: now, claimedAt: now, runAt: now)
        }
        let sha = String(repeating: "ab", count: 32)
        #expect(try DropboxFetchDetails(job: job(#"{"root": "/srv/", "thumbnail": "w64h64"}"#)).thumbnail == "w64h64")
        #expect(try DropboxFetchDetails(job: job(#"{"root": "/srv/", "sha256": "\#(sha.uppercased())"}"#)).sha256 == sha)
        do {
            _ = try DropboxFetchDetails(job: job(#"{"root": "/srv/", "thumbnail": "w64h64", "sha256": "\#(sha)"}"#))
            Issue.record("both were accepted")
        } catch let failure as JobFailure {
            #expect(failure.code == "bad_details" && failure.message.contains("thumbnail") && failure.message.contains("sha256"))
            guard case .permanent = failure.kind else { Issue.record("\(failure.kind)"); return }
        }
    }
}
