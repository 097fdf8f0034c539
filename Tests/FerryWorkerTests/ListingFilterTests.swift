import FerryCore
import FerryS3
import FerryTestSupport
import Foundation
import NIOCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Filters on folder and prefix fetches: the listing takes only what `--include`, `--exclude` and the size flags
/// let through. Real workers against the dev server and moto.
@Suite("filters on fetched folders and prefixes", .tags(.postgres, .process), .serialized)
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

    @Test("a Dropbox folder with --include '*.jpg' --max-size 5k fetches only small photos, below folders too; one file with filters is refused")
    func dropboxFolder() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("listing_filter")
        let token = try await DropboxAccounts.add("box", server: server, databaseURL: db.url)
        for (path, size) in [("/F/a.jpg", 1000), ("/F/b.txt", 1000), ("/F/sub/c.jpg", 2000), ("/F/sub/big.jpg", 9000)] {
            try await DropboxFetchTests.upload(server, refreshToken: token, path: path, data: Data(repeating: 1, count: size))
        }
        let dir = try temporaryFolder("listing-filter")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let enqueued = try await FerryProcess.run(
            ["enqueue", "fetch", "dropbox:box:/F", "--recursive", "--to", dir + "/", "--batch", "f", "--include", "*.jpg", "--max-size", "5k"],
            databaseURL: db.url)
        #expect(enqueued.status == 0, "\(enqueued.stderr)")
        let worker = try TestWorker.transfers(db, name: "filter")
        try await eventually(timeout: .seconds(300), "the folder") { try await WorkerFixtures.batchDone(db, "f") }
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()
        #expect(Self.files(dir) == ["a.jpg", "sub/c.jpg"])
        // A URL is one file: filters have nothing to choose from (a Dropbox path may be a folder: it lists).
        let one = try await FerryProcess.run(
            ["enqueue", "fetch", "https://example.com/a.jpg", "--to", dir + "/", "--include", "*.jpg"], databaseURL: db.url)
        #expect(one.status == 65 && one.stderr.contains("nothing to choose from"), "\(one.stderr)")
    }

    @Test("an S3 prefix with --exclude '*.tmp' --min-size 100b fetches the rest")
    func s3Prefix() async throws {
        let setup = try await S3TransferTests.setUp("listing_filter_s3")
        defer { try? FileManager.default.removeItem(atPath: setup.dir) }
        for (key, size) in [("p/a.jpg", 500), ("p/b.tmp", 500), ("p/tiny.jpg", 10), ("p/d/e.jpg", 300)] {
            _ = try await setup.client.putObject(
                bucket: setup.bucket, key: key, body: .bytes(ByteBuffer(bytes: [UInt8](repeating: 2, count: size))))
        }
        let target = setup.dir + "/out"
        let enqueued = try await FerryProcess.run(
            ["enqueue", "fetch", "s3:s3:\(setup.bucket)/p/", "--recursive", "--to", target + "/", "--batch", "p", "--exclude", "*.tmp",
             "--min-size", "100b"],
            databaseURL: setup.db.url)
        #expect(enqueued.status == 0, "\(enqueued.stderr)")
        let worker = try TestWorker.transfers(setup.db, name: "filter-s3")
        try await eventually(timeout: .seconds(300), "the prefix") { try await WorkerFixtures.batchDone(setup.db, "p") }
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()
        let states = try await setup.db.query("SELECT source, state, coalesce(last_error, '') FROM ferry.jobs").rows.map {
            "\(try $0.decode(String.self, at: 0)) \(try $0.decode(String.self, at: 1)) \(try $0.decode(String.self, at: 2))"
        }
        #expect(Self.files(target) == ["a.jpg", "d/e.jpg"], "\(states)")
    }
}
