import FerryCore
import FerryS3
import FerryTestSupport
import Foundation
import NIOCore
import Postgres
import Testing

/// Filters on folder and prefix fetches: the listing takes only what `--include`, `--exclude` and the size flags
/// let through. Workers in process (`InProcessFleet`) against the dev server in process and moto; the command's
/// refusal and a worker process on an exploding filter are `ListingFilterProcessTests`.
@Suite("filters on fetched folders and prefixes", .tags(.postgres), .serialized)
struct ListingFilterTests {
    static func files(_ dir: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: dir)
        var out = [String]()
        while let item = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: dir + "/" + item, isDirectory: &isDirectory), !isDirectory.boolValue { out.append(item) }
        }
        return out.sorted()
    }

    /// The `filter` option `ferry enqueue` makes of `--include`, `--exclude`, `--min-size` and `--max-size` (in its
    /// order: the includes, then the excludes, then "everything else out" when anything was included).
    static func filterOption(include: [String] = [], exclude: [String] = [], minSize: String? = nil, maxSize: String? = nil) throws -> [String: OptionValue] {
        var filter = FileFilter()
        for text in include { filter.rules.append(.init(include: true, pattern: try GlobPattern(text), origin: "--include '\(text)'")) }
        for text in exclude { filter.rules.append(.init(include: false, pattern: try GlobPattern(text), origin: "--exclude '\(text)'")) }
        if !include.isEmpty { filter.rules.append(.init(include: false, pattern: try GlobPattern("**"), origin: "--include (files matching no --include)")) }
        filter.minSize = try minSize.map { try #require(FileFilter.parseSize($0)) }
        filter.maxSize = try maxSize.map { try #require(FileFilter.parseSize($0)) }
        return ["filter": .commandLine(filter.json.jsonText)]
    }

    @Test("a Dropbox folder with --include '*.jpg' --max-size 5k fetches only small photos, below folders too")
    func dropboxFolder() async throws {
        try await InProcessFleet.run("listing_filter") { fleet in
            let token = try await fleet.addDropbox("box")
            for (path, size) in [("/F/a.jpg", 1000), ("/F/b.txt", 1000), ("/F/sub/c.jpg", 2000), ("/F/sub/big.jpg", 9000)] {
                try await DropboxFetchTests.upload(fleet.server, refreshToken: token, path: path, data: Data(repeating: 1, count: size))
            }
            let dir = try temporaryFolder("listing-filter")
            defer { try? FileManager.default.removeItem(atPath: dir) }
            // --recursive --include '*.jpg' --max-size 5k
            try await fleet.enqueue(.fetch, "dropbox:box:/F", to: dir + "/", batch: "f", options: try Self.filterOption(include: ["*.jpg"], maxSize: "5k").merging(DropboxFetchTests.recursive) { $1 })
            let worker = try fleet.worker("filter")
            try await eventually(timeout: .seconds(300), "the folder") { try await WorkerFixtures.batchDone(fleet.db, "f") }
            try await fleet.stop([worker])
            #expect(Self.files(dir) == ["a.jpg", "sub/c.jpg"])
        }
    }

    @Test("an S3 prefix with --exclude '*.tmp' --min-size 100b fetches the rest")
    func s3Prefix() async throws {
        try await InProcessFleet.run("listing_filter_s3") { fleet in
            let (bucket, client) = try await fleet.addS3("s3", label: "listing_filter_s3")
            for (key, size) in [("p/a.jpg", 500), ("p/b.tmp", 500), ("p/tiny.jpg", 10), ("p/d/e.jpg", 300)] {
                _ = try await client.putObject(bucket: bucket, key: key, body: .bytes(ByteBuffer(bytes: [UInt8](repeating: 2, count: size))))
            }
            let dir = try temporaryFolder("listing-filter-s3")
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let target = dir + "/out"
            // --recursive --exclude '*.tmp' --min-size 100b
            try await fleet.enqueue(
                .fetch, "s3:s3:\(bucket)/p/", to: target + "/", batch: "p", options: try Self.filterOption(exclude: ["*.tmp"], minSize: "100b").merging(DropboxFetchTests.recursive) { $1 })
            let worker = try fleet.worker("filter-s3")
            try await eventually(timeout: .seconds(300), "the prefix") { try await WorkerFixtures.batchDone(fleet.db, "p") }
            try await fleet.stop([worker])
            let states = try await fleet.db.query("SELECT source, state, coalesce(last_error, '') FROM ferry.jobs").rows.map {
                "\(try $0.decode(String.self, at: 0)) \(try $0.decode(String.self, at: 1)) \(try $0.decode(String.self, at: 2))"
            }
            #expect(Self.files(target) == ["a.jpg", "d/e.jpg"], "\(states)")
        }
    }
}
