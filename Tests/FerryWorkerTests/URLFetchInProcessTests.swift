import Crypto
import FerryCore
import FerryTestSupport
import FerryTesting
import Foundation
import Testing

/// Plain web fetches by a real `Worker` in process: the registry's web fetch handler against a dev server in process,
/// over the memory store (`WebFetchHarness`). What needs a `kill -9` stays in `URLFetchTests`.
@Suite("URL fetches in process", .tags(.fast))
struct URLFetchInProcessTests {
    static func hex(_ bytes: [UInt8]) -> String { SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined() }

    @Test("several files arrive intact; a wrong sha256 fails leaving nothing; 404 and 410 fail on the first attempt; the URL's signature is never logged")
    func severalFiles() async throws {
        let dir = try temporaryFolder("url-files")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let log = LogRecorder()
        try await WebFetchHarness.run(root: dir, workerLogger: log.logger(label: "url-files")) { web in
            let sizes = [0, 1_000, 300_000, 9 * 1024 * 1024 + 5]
            var expected = [String: [UInt8]]()
            var ids = [UUID]()
            for (index, size) in sizes.enumerated() {
                let bytes = WebFetchHarness.bytes(size, seed: UInt64(index + 1))
                expected["\(dir)/file-\(index).bin"] = bytes
                try web.server.storeWebFile(path: "files/file-\(index).bin", contents: bytes)
                ids.append(try web.fetch("files/file-\(index).bin?sig=SECRETSIG", bytes: nil, to: dir + "/"))
            }
            // A file last modified in 2011 keeps that time (Last-Modified) when fetched.
            try await web.control("/__dev/web", .object(["path": .string("files/old.bin"), "size": .int(2_000), "seed": .int(9), "modified": .int(1_300_000_000)]))
            ids.append(try web.fetch("files/old.bin", bytes: nil, to: dir + "/old.bin"))
            let checked = WebFetchHarness.bytes(50_000, seed: 40)
            let checkedID = try web.fetch(
                "files/checked.bin", bytes: checked, to: dir + "/checked.bin", options: ["sha256": .commandLine(Self.hex(checked))])
            let wrongSHA = String(repeating: "ab", count: 32)
            let wrongID = try web.fetch(
                "files/wrong.bin", bytes: WebFetchHarness.bytes(70_000, seed: 41), to: dir + "/wrong.bin", options: ["sha256": .commandLine(wrongSHA)])
            let missingID = try web.fetch("files/missing.bin", bytes: nil, to: dir + "/missing.bin")
            try web.server.storeWebFile(path: "files/gone.bin", contents: WebFetchHarness.bytes(10, seed: 42))
            try web.server.setWebStatus(path: "files/gone.bin", status: 410)
            let goneID = try web.fetch("files/gone.bin", bytes: nil, to: dir + "/gone.bin")

            let jobs = try await web.harness.settle(ids + [checkedID, wrongID, missingID, goneID], timeout: .seconds(300))
            #expect(jobs.prefix(ids.count + 1).allSatisfy { $0.state == .succeeded }, "\(jobs.map(\.lastError))")
            for (path, bytes) in expected {
                #expect(FileManager.default.contents(atPath: path) == Data(bytes), "\(path)")
            }
            let old = try FileManager.default.attributesOfItem(atPath: dir + "/old.bin")[.modificationDate] as? Date
            #expect(old?.timeIntervalSince1970 == 1_300_000_000, "the source's Last-Modified")
            #expect(FileManager.default.contents(atPath: dir + "/checked.bin") == Data(checked))

            let wrong = try #require(web.store.job(wrongID))
            #expect(wrong.state == .failed && wrong.attempt == 1)
            #expect(wrong.lastError?.contains("SHA-256") == true && wrong.lastError?.contains(wrongSHA) == true, "\(wrong.lastError ?? "")")
            #expect(!FileManager.default.fileExists(atPath: dir + "/wrong.bin"))
            for (id, name, status) in [(missingID, "missing.bin", "404"), (goneID, "gone.bin", "410")] {
                let failed = try #require(web.store.job(id))
                #expect(failed.state == .failed && failed.attempt == 1, "\(name) failed at once")
                #expect(failed.lastError?.contains(status) == true && failed.lastError?.contains("/web/files/\(name)") == true, "\(failed.lastError ?? "")")
                #expect(!FileManager.default.fileExists(atPath: dir + "/" + name))
            }
            // Only the finished files: no temporary files left behind, and the signature never reached the log.
            let names = Set(try FileManager.default.contentsOfDirectory(atPath: dir))
            #expect(names == Set(expected.keys.map { ($0 as NSString).lastPathComponent } + ["checked.bin", "old.bin"]))
            #expect(!log.all.isEmpty && !log.all.contains { $0.contains("SECRETSIG") })
            #expect(!jobs.contains { $0.lastError?.contains("SECRETSIG") == true })
        }
    }

    @Test("redirects are followed (relative and absolute Location), a loop fails after the limit, a non-http target is refused")
    func redirects() async throws {
        let dir = try temporaryFolder("url-redirects")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await WebFetchHarness.run(root: dir) { web in
            func redirect(_ path: String, to location: String, status: Int64) async throws {
                try await web.control("/__dev/web/redirect", .object(["path": .string(path), "location": .string(location), "status": .int(status)]))
            }
            let bytes = WebFetchHarness.bytes(2 * 1024 * 1024 + 3, seed: 9)
            try web.server.storeWebFile(path: "final/a.bin", contents: bytes)
            try await redirect("old/a.bin", to: "/web/new/a.bin", status: 301)
            try await redirect("new/a.bin", to: web.webURL + "/final/a.bin", status: 307)
            try await redirect("loop/x.bin", to: "/web/loop/x.bin", status: 302)
            try await redirect("odd/y.bin", to: "ftp://example.com/y.bin", status: 302)
            let ids = try ["old/a.bin", "loop/x.bin", "odd/y.bin"].map { try web.fetch($0, bytes: nil, to: dir + "/") }
            let jobs = try await web.harness.settle(ids, timeout: .seconds(300))

            #expect(jobs[0].state == .succeeded, "\(jobs[0].lastError ?? "")")
            #expect(FileManager.default.contents(atPath: dir + "/a.bin") == Data(bytes), "the bytes of the final target, under the name asked for")
            #expect(jobs[1].state == .failed && jobs[1].attempt == 1 && (jobs[1].lastError ?? "").contains("too_many_redirects"), "\(jobs[1])")
            #expect(jobs[2].state == .failed && (jobs[2].lastError ?? "").contains("bad_redirect"), "\(jobs[2].lastError ?? "")")
            let requests = web.server.stats().webRequestsPerPath
            for path in ["/web/old/a.bin", "/web/new/a.bin", "/web/final/a.bin"] {
                #expect((requests[path] ?? 0) >= 1, "\(path) was requested")
            }
            #expect(Set(try FileManager.default.contentsOfDirectory(atPath: dir)) == ["a.bin"], "nothing left by the failed ones")
        }
    }
}
