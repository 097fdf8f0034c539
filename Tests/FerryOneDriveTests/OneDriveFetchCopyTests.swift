import FerryCore
import FerryDevServer
import FerryOneDrive
import FerryStore
import FerryTestSupport
import FerryTesting
import Foundation
import Logging
import FerryProviders
import Testing

@testable import FerryWorker

/// Fetches and copies through real workers: a folder fanned out over `@odata.nextLink` pages (subfolders too), files
/// checked against their quickXorHash; copies OneDrive → Dropbox and Dropbox → OneDrive through the copy capabilities.
@Suite(.serialized, .tags(.postgres))
struct OneDriveFetchCopyTests {
    static func seed(_ f: OneDriveWorkerFixture) throws -> [String: [UInt8]] {
        var files = [String: [UInt8]]()
        for index in 0..<7 { files["Trip/p\(index).jpg"] = OneDriveWorkerFixture.bytes(1000 + index * 3000, seed: UInt64(index + 10)) }
        files["Trip/Day 2/big.mov"] = OneDriveWorkerFixture.bytes(700 * 1024, seed: 99)
        files["Trip/Day 2/note.txt"] = Array("hello".utf8)
        for (path, bytes) in files { try f.server.putOneDriveFile(account: "od", path: "/" + path, bytes: bytes) }
        return files
    }

    /// Runs `spec` (a folder fetch or copy) on `worker` until it and its `children` children settled; answers them.
    static func settle(_ spec: JobSpec, children count: Int, on worker: WorkerHarness, _ f: OneDriveWorkerFixture) async throws -> (MemoryJob?, [MemoryJob]) {
        let id = f.jobs.enqueue(spec).jobID
        let batch = spec.batch
        try await worker.settle([id], timeout: .seconds(300))
        try await worker.waitUntil(timeout: .seconds(300), "the children settled") { store in
            let children = store.jobs.filter { $0.batch == batch && $0.jobID != id }
            return children.count == count && children.allSatisfy { $0.state.isTerminal }
        }
        return (f.jobs.job(id), f.jobs.jobs.filter { $0.batch == batch && $0.jobID != id })
    }

    static func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { Array($0) }
    }

    @Test("a folder fetch lists children in pages of page_size, subfolders with recursive; every file once, bytes equal; a second run downloads nothing")
    func folderFetch() async throws {
        try await OneDriveWorkerFixture.run("fetch") { f in
            let files = try Self.seed(f)
            let out = f.folder + "/out/"
            let options: [String: OptionValue] = ["recursive": .json(.bool(true)), "page_size": .json(.int(3))]
            let worker = try f.worker()
            let (parent, children) = try await Self.settle(
                try f.spec(.fetch, source: "onedrive:od:/Trip/", to: out, options: options, batch: "trip"), children: 10, on: worker, f)
            #expect(children.allSatisfy { $0.state == .succeeded }, "\(children.compactMap(\.lastError))")
            for (path, bytes) in files {
                #expect(Self.contents(out + String(path.dropFirst("Trip/".count))) == bytes, "\(path)")
            }
            #expect(f.server.oneDriveStats().childrenPages >= 4, "7 children and a folder in pages of 3, and the subfolder's page")
            #expect(parent?.result?["pages"] == .int(3))

            let downloads = f.server.oneDriveStats().downloads
            let (_, again) = try await Self.settle(
                try f.spec(.fetch, source: "onedrive:od:/Trip/", to: out, options: options, batch: "again"), children: 10, on: worker, f)
            try await worker.stop()
            #expect(again.allSatisfy { $0.state == .succeeded })
            #expect(f.server.oneDriveStats().downloads == downloads, "the same files are not downloaded again")
        }
    }

    @Test("a worker stopped mid-download leaves the durable offset recorded; another resumes it with Range and the file is whole, its quickXorHash checked")
    func resumedDownload() async throws {
        try await OneDriveWorkerFixture.run("range") { f in
            let data = OneDriveWorkerFixture.bytes(2 * 1024 * 1024 + 17, seed: 5)
            try f.server.putOneDriveFile(account: "od", path: "/Films/f.mov", bytes: data)
            f.server.updateFaults(FaultConfiguration(downloadBytesPerSecond: 256 * 1024))
            let first = try f.worker()
            let id = f.jobs.enqueue(try f.spec(.fetch, source: "onedrive:od:/Films/f.mov", to: f.folder + "/films/")).jobID
            try await first.waitUntil(timeout: .seconds(300), "a checkpoint recorded") { ($0.job(id)?.session?["offset"]?.intValue ?? 0) > 0 }
            try await first.stop()
            let recorded = f.jobs.job(id)?.session?["offset"]?.intValue ?? 0
            #expect(recorded > 0 && recorded < Int64(data.count))
            f.server.updateFaults(.none)
            let second = try f.worker()
            let done = try await second.settle([id], timeout: .seconds(300))
            try await second.stop()
            #expect(done[0].state == .succeeded, "\(done[0].lastError ?? "")")
            let fetched = Self.contents(f.folder + "/films/f.mov")
            #expect(fetched?.count == data.count && fetched == data, "whole and equal")
            #expect(f.server.oneDriveStats().rangedDownloads == 1, "the second worker asked for the rest only")
            #expect(done[0].result?["quick_xor"] == .string(QuickXorHash.hash(data)))
        }
    }

    @Test("the listing capability walks a folder's tree over children pages with quickXorHash digests and reads a listed file; the removal capability deletes it")
    func listing() async throws {
        try await OneDriveWorkerFixture.run("listing") { f in
            let files = try Self.seed(f)
            f.server.setOneDrivePageSize(3)
            let lister = try #require(OneDriveProvider().lister(environment: f.environment))
            var entries = [RemoteEntry]()
            try await lister.list("onedrive:od:/Trip/", options: RemoteListOptions(recursive: true), logger: Logger(label: "test")) { entries += $0 }
            let listed = Set(entries.filter { !$0.isFolder }.map(\.path))
            #expect(listed == Set(files.keys.map { String($0.dropFirst("Trip/".count)) }))
            #expect(entries.contains { $0.isFolder && $0.path == "Day 2" })
            let note = try #require(entries.first { $0.path == "Day 2/note.txt" })
            #expect(note.digest(.oneDriveQuickXor)?.value == QuickXorHash.hash(Array("hello".utf8)))
            var read = [UInt8]()
            try await lister.read(note, logger: Logger(label: "test")) { read += $0.readableBytesView }
            #expect(read == Array("hello".utf8))
            // The removal capability deletes what the listing named; a second removal of it is done too.
            let remover = try #require(OneDriveProvider().remover(environment: f.environment))
            try await remover.remove(note, logger: Logger(label: "test"))
            try await remover.remove(note, logger: Logger(label: "test"))
            #expect(f.server.oneDriveFile(account: "od", path: "/Trip/Day 2/note.txt") == nil)
            #expect(f.server.oneDriveStats().deleted == 1)
        }
    }

    @Test("a listing is hostile input: names .., with control characters or too long for a local name are skipped and counted; nothing is written outside the target")
    func hostileNames() async throws {
        try await OneDriveWorkerFixture.run("hostile") { f in
            // The dev server's Swift API stores any name, as a hostile or broken service could list it.
            try f.server.putOneDriveFile(account: "od", path: "/Hostile/good.txt", bytes: Array("ok".utf8))
            try f.server.putOneDriveFile(account: "od", path: "/Hostile/..", bytes: Array("up".utf8))
            try f.server.putOneDriveFile(account: "od", path: "/Hostile/evil\u{1B}[2J\u{07}.txt", bytes: Array("esc".utf8))
            try f.server.putOneDriveFile(account: "od", path: "/Hostile/" + String(repeating: "n", count: 300), bytes: [1])
            let out = f.folder + "/safe/inside/"
            let worker = try f.worker()
            let (parent, children) = try await Self.settle(
                try f.spec(.fetch, source: "onedrive:od:/Hostile/", to: out, batch: "hostile"), children: 1, on: worker, f)
            try await worker.stop()
            #expect(parent?.state == .succeeded && parent?.result?["skipped_unsafe"] == .int(3), "\(String(describing: parent?.result))")
            #expect(children.count == 1 && children.allSatisfy { $0.state == .succeeded })
            #expect(Self.contents(out + "good.txt") == Array("ok".utf8))
            let written = try FileManager.default.contentsOfDirectory(atPath: out)
            #expect(Self.contents(f.folder + "/safe/up") == nil && written == ["good.txt"])
        }
    }

    @Test("copies OneDrive → Dropbox and Dropbox → OneDrive through a real worker and the copy capabilities: bytes equal, no per-pair code")
    func copies() async throws {
        try await OneDriveWorkerFixture.run("copies") { f in
            let files = try Self.seed(f)
            try await f.addDropboxAccount("dbx")
            let worker = try f.worker()
            let options: [String: OptionValue] = ["if_changed": .json(.bool(true))]
            let (_, out) = try await Self.settle(
                try f.spec(.copy, source: "onedrive:od:/Trip/", to: "dropbox:dbx:/Trip/", options: options, batch: "out"), children: files.count,
                on: worker, f)
            #expect(out.allSatisfy { $0.state == .succeeded }, "\(out.compactMap(\.lastError))")
            let (_, back) = try await Self.settle(
                try f.spec(.copy, source: "dropbox:dbx:/Trip/", to: "onedrive:od:/Back/", options: options, batch: "back"), children: files.count,
                on: worker, f)
            try await worker.stop()
            #expect(back.allSatisfy { $0.state == .succeeded }, "\(back.compactMap(\.lastError))")
            for (path, bytes) in files {
                let copied = f.server.oneDriveFile(account: "od", path: "/Back/" + String(path.dropFirst("Trip/".count)))
                #expect(copied == bytes, "\(path) went there and back")
            }
            #expect(f.server.oneDriveStats().sessionsCompleted >= 1, "the 700 KiB file came back in a session")
        }
    }

    @Test("copies OneDrive → S3 and S3 → OneDrive through a real worker and the copy capabilities: bytes equal, no per-pair code")
    func copiesWithS3() async throws {
        try await OneDriveWorkerFixture.run("copies_s3") { f in
            let files = try Self.seed(f)
            let bucket = try await f.addS3Account("s3")
            let worker = try f.worker()
            let (_, out) = try await Self.settle(
                try f.spec(.copy, source: "onedrive:od:/Trip/", to: "s3:s3:\(bucket)/trip/", batch: "out"), children: files.count, on: worker, f)
            #expect(out.allSatisfy { $0.state == .succeeded }, "\(out.compactMap(\.lastError))")
            let (_, back) = try await Self.settle(
                try f.spec(.copy, source: "s3:s3:\(bucket)/trip/", to: "onedrive:od:/FromS3/", batch: "back"), children: files.count, on: worker, f)
            try await worker.stop()
            #expect(back.allSatisfy { $0.state == .succeeded }, "\(back.compactMap(\.lastError))")
            for (path, bytes) in files {
                let copied = f.server.oneDriveFile(account: "od", path: "/FromS3/" + String(path.dropFirst("Trip/".count)))
                #expect(copied == bytes, "\(path) went to S3 and back")
            }
        }
    }
}
