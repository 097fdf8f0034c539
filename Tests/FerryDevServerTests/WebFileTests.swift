import FerryTestSupport
import Foundation
import Testing
@testable import FerryDevServer

@Suite("Plain web files", .tags(.fast))
struct WebFileTests {
    @Test("validators, Range 206, 416, HEAD, If-Range and conditional GETs")
    func rangesAndValidators() async throws {
        try await DevServerHarness.run { h in
            let created = try await h.request(.POST, "/__dev/web", body: Array(#"{"path":"a/b.jpg","size":1000,"seed":7}"#.utf8))
            #expect(created.status == 200)
            #expect(created.json["path"] as? String == "a/b.jpg")
            #expect(created.json["size"] as? Int == 1000)
            let etag = try #require(created.json["etag"] as? String)
            #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"), "strong")
            #expect((created.json["sha256"] as? String)?.count == 64)

            let full = try await h.request(.GET, "/web/a/b.jpg")
            #expect(full.status == 200)
            #expect(full.body.count == 1000)
            #expect(full.header("ETag") == etag)
            #expect(full.header("Accept-Ranges") == "bytes")
            #expect(full.header("Content-Length") == "1000")
            #expect(full.header("Content-Type") == "image/jpeg")
            let lastModified = try #require(full.header("Last-Modified"))
            #expect(lastModified.hasSuffix(" GMT"))
            #expect(Set(full.body).count > 200, "pseudo-random content")

            let again = try h.server.createWebFile(path: "other.bin", size: 1000, seed: 7)
            #expect(try await h.request(.GET, "/web/other.bin").body == full.body, "same seed, same bytes")
            #expect(again.sha256 == created.json["sha256"] as? String)

            let head = try await h.request(.HEAD, "/web/a/b.jpg")
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            #expect(head.header("Content-Length") == "1000")
            #expect(head.header("ETag") == etag)

            let middle = try await h.request(.GET, "/web/a/b.jpg", headers: [("Range", "bytes=100-199")])
            #expect(middle.status == 206)
            #expect(middle.body == Array(full.body[100...199]))
            #expect(middle.header("Content-Range") == "bytes 100-199/1000")
            let open = try await h.request(.GET, "/web/a/b.jpg", headers: [("Range", "bytes=900-")])
            #expect(open.status == 206)
            #expect(open.body == Array(full.body[900...]))
            #expect(open.header("Content-Range") == "bytes 900-999/1000")
            let beyond = try await h.request(.GET, "/web/a/b.jpg", headers: [("Range", "bytes=1000-")])
            #expect(beyond.status == 416)
            #expect(beyond.header("Content-Range") == "bytes */1000")

            let ifRangeTag = try await h.request(.GET, "/web/a/b.jpg", headers: [("Range", "bytes=500-"), ("If-Range", etag)])
            #expect(ifRangeTag.status == 206)
            let ifRangeDate = try await h.request(.GET, "/web/a/b.jpg", headers: [("Range", "bytes=500-"), ("If-Range", lastModified)])
            #expect(ifRangeDate.status == 206)
            #expect(try await h.request(.GET, "/web/a/b.jpg", headers: [("If-None-Match", etag)]).status == 304)

            // Replacing the file: new ETag and Last-Modified; old validators now mean "send it all".
            let replaced = try h.server.createWebFile(path: "a/b.jpg", size: 800, seed: 8)
            #expect(replaced.etag != etag)
            #expect(replaced.lastModified != lastModified)
            let stale = try await h.request(.GET, "/web/a/b.jpg", headers: [("Range", "bytes=500-"), ("If-Range", etag)])
            #expect(stale.status == 200)
            #expect(stale.body.count == 800)
            #expect(stale.header("ETag") == replaced.etag)
            let staleDate = try await h.request(.GET, "/web/a/b.jpg", headers: [("Range", "bytes=500-"), ("If-Range", lastModified)])
            #expect(staleDate.status == 200)
            #expect(try await h.request(.GET, "/web/a/b.jpg", headers: [("If-None-Match", etag)]).status == 200)
            #expect(try await h.request(.GET, "/web/a/b.jpg", headers: [("If-Range", replaced.etag), ("Range", "bytes=0-9")]).status == 206)

            let stats = h.server.stats()
            #expect(stats.webRequestsPerPath["/web/a/b.jpg"] == 12)
            #expect(stats.webRangeStartsPerPath["/web/a/b.jpg"] == [0, 100, 900, 500, 500, 0, 0, 0, 0])
            #expect(stats.webBytesSent == 1000 + 1000 + 100 + 100 + 500 + 500 + 800 + 800 + 800 + 10)
        }
    }

    @Test("exact bytes by PUT, 404 for missing files, forced 410, delete")
    func storeAndStatuses() async throws {
        try await DevServerHarness.run { h in
            let stored = try await h.request(.PUT, "/__dev/web/docs/hello%20world.txt", body: Array("hello".utf8))
            #expect(stored.status == 200)
            #expect(stored.json["sha256"] as? String == "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")
            #expect(stored.json["path"] as? String == "docs/hello world.txt")
            let fetched = try await h.request(.GET, "/web/docs/hello%20world.txt")
            #expect(fetched.text == "hello")
            #expect(fetched.header("Content-Type") == "text/plain; charset=utf-8")

            #expect(try await h.request(.GET, "/web/missing.bin").status == 404)
            #expect(try await h.request(.GET, "/web/docs").status == 404, "folders are not files")
            #expect(try await h.request(.GET, "/web/../etc/passwd").status == 404)
            #expect(try await h.request(.POST, "/web/docs/hello%20world.txt").status == 405)

            let gone = try await h.request(.POST, "/__dev/web/status", body: Array(#"{"path":"docs/hello world.txt","status":410}"#.utf8))
            #expect(gone.status == 200)
            #expect(try await h.request(.GET, "/web/docs/hello%20world.txt").status == 410)
            try h.server.setWebStatus(path: "never/existed.jpg", status: 410)
            #expect(try await h.request(.GET, "/web/never/existed.jpg").status == 410)
            _ = try await h.request(.POST, "/__dev/web/status", body: Array(#"{"path":"docs/hello world.txt","status":null}"#.utf8))
            #expect(try await h.request(.GET, "/web/docs/hello%20world.txt").status == 200)

            #expect(try await h.request(.DELETE, "/__dev/web/docs/hello%20world.txt").status == 200)
            #expect(try await h.request(.GET, "/web/docs/hello%20world.txt").status == 404)
            let nested = try await h.request(.POST, "/__dev/web", body: Array(#"{"path":"missing.bin/child","size":1}"#.utf8))
            #expect(nested.status == 200, "parent folders are created")
            let fileInTheWay = try await h.request(.POST, "/__dev/web", body: Array(#"{"path":"missing.bin/child/x","size":1}"#.utf8))
            #expect(fileInTheWay.status == 409)
        }
    }

    @Test("files dropped into <storage>/.web by hand are served")
    func handPlacedFiles() async throws {
        try await DevServerHarness.run { h in
            try FileManager.default.createDirectory(atPath: h.storage + "/.web/x", withIntermediateDirectories: true)
            try Data("by hand".utf8).write(to: URL(fileURLWithPath: h.storage + "/.web/x/y.txt"))
            let result = try await h.request(.GET, "/web/x/y.txt")
            #expect(result.text == "by hand")
            #expect(result.header("ETag") != nil)
        }
    }

    @Test("faults apply to /web/: 5xx, 429 with Retry-After, dropped connections")
    func faults() async throws {
        try await DevServerHarness.run(faults: FaultConfiguration(seed: 1, rateLimitRate: 1, retryAfterSeconds: 3, routes: ["web"])) { h in
            try h.server.createWebFile(path: "f.bin", size: 10)
            let limited = try await h.request(.GET, "/web/f.bin")
            #expect(limited.status == 429)
            #expect(limited.header("Retry-After") == "3")
            h.server.updateFaults(FaultConfiguration(seed: 1, failureRate: 1, routes: ["web"]))
            let failed = try await h.request(.GET, "/web/f.bin")
            #expect(failed.status == 500 || failed.status == 503)
            h.server.updateFaults(FaultConfiguration(seed: 1, dropRate: 1, routes: ["web"]))
            #expect(await h.isDropped { try await h.request(.GET, "/web/f.bin") })
            h.server.updateFaults(.none)
            #expect(try await h.request(.GET, "/web/f.bin").status == 200)
            let stats = h.server.stats()
            #expect(stats.faultsInjected["rate_limit"] == 1)
            #expect(stats.faultsInjected["failure"] == 1)
            #expect(stats.faultsInjected["drop"] == 1)
            #expect(stats.requestsPerRoute["web"] == 4)
            #expect(stats.webRangeStartsPerPath["/web/f.bin"] == [0], "faulted requests never reach the file")
        }
    }
}
