import AsyncHTTPClient
import FerryCore
import FerryDevServer
import FerryGoogleDrive
import FerryProviders
import FerryTestSupport
import FerryTesting
import Foundation
import Logging
import NIOCore
import Testing

@testable import FerryWorker

/// The Google Drive fetch handler in process against the dev server's Drive emulation.
@Suite("Google Drive fetches", .tags(.postgres), .serialized)
struct GoogleDriveFetchTests {
    /// A client with a token of the fixture's account, to set up what a person would have in their Drive.
    static func client(_ f: GoogleDriveWorkerFixture) -> (GoogleDriveClient, String) {
        (GoogleDriveClient(httpClient: .shared, endpoints: .single(f.baseURL), logger: Logger(label: "test")),
         f.server.issueGoogleDriveAccessToken(account: "drive"))
    }

    static func document(_ f: GoogleDriveWorkerFixture, name: String, parent: String, token: String) async throws -> String {
        var request = HTTPClientRequest(url: f.baseURL + "/drive/v3/files")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.body = .bytes(ByteBuffer(string: #"{"name":"\#(name)","mimeType":"application/vnd.google-apps.document","parents":["\#(parent)"]}"#))
        let answer = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let json = try JSONValue.parse(String(buffer: try await answer.body.collect(upTo: 1 << 20)))
        return try #require(json["id"]?.stringValue)
    }

    @Test("a folder fans out by pages into file fetches, subfolders too with recursive; MD5 checked, modifiedTime kept; Google Docs exported or skipped")
    func folderFanOut() async throws {
        try await GoogleDriveWorkerFixture.run("fetch") { f in
            let (client, token) = Self.client(f)
            let photos = try await client.createFolder(name: "Photos", parentID: "root", accessToken: token)
            let year = try await client.createFolder(name: "2025", parentID: photos.id, accessToken: token)
            var expected: [String: [UInt8]] = [:]
            for index in 0..<5 {
                let bytes = GoogleDriveWorkerFixture.bytes(3000 + index, seed: UInt64(index + 9))
                let parent = index < 3 ? photos.id : year.id
                _ = try await client.multipartUpload(
                    GoogleDriveNewFile(name: "p\(index).jpg", parentID: parent, modifiedTime: "2024-01-02T03:04:05.000Z"), bytes: bytes, accessToken: token)
                expected[(index < 3 ? "" : "2025/") + "p\(index).jpg"] = bytes
            }
            _ = try await Self.document(f, name: "Plan", parent: photos.id, token: token)
            _ = try await client.multipartUpload(GoogleDriveNewFile(name: "..", parentID: photos.id), bytes: [1], accessToken: token)

            let target = f.folder + "/out/"
            var spec = try f.spec(.fetch, source: "gdrive:drive:/Photos/", to: target,
                                  options: ["recursive": .json(.bool(true)), "page_size": .json(.int(2)), "export": .commandLine("txt")])
            spec.batch = "photos"
            let worker = try f.worker(.fetch)
            let parent = f.jobs.enqueue(spec).jobID
            // The folder, its subfolder, five files and the exported document.
            try await worker.waitUntil(timeout: .seconds(120), "the tree fetched") { store in
                let batch = store.jobs.filter { $0.batch == "photos" }
                return batch.count >= 8 && batch.allSatisfy { $0.state.isTerminal }
            }
            try await worker.stop()
            let jobs = f.jobs.jobs.filter { $0.batch == "photos" }
            #expect(jobs.allSatisfy { $0.state == .succeeded }, "\(jobs.map { "\($0.source): \($0.lastError ?? "")" })")
            for (relative, bytes) in expected {
                #expect(FileManager.default.contents(atPath: target + relative).map(Array.init) == bytes, "\(relative)")
                let modified = try FileManager.default.attributesOfItem(atPath: target + relative)[.modificationDate] as? Date
                #expect(modified == Date(timeIntervalSince1970: 1_704_164_645))
            }
            let export = String(decoding: FileManager.default.contents(atPath: target + "Plan.txt") ?? Data(), as: UTF8.self)
            #expect(export.contains("Plan"))
            let result = try #require(f.jobs.job(parent)?.result)
            #expect(result["skipped_unsafe"]?.intValue == 1 && result["folders"]?.intValue == 1 && result["pages"]?.intValue == 3)

            // Fetched again, nothing is downloaded: every file is there with its MD5.
            let downloads = f.server.googleDriveStats().downloads
            var again = try f.spec(.fetch, source: "gdrive:drive:/Photos/", to: target, options: ["recursive": .json(.bool(true))])
            again.batch = "again"
            let rerun = try f.worker(.fetch)
            _ = f.jobs.enqueue(again)
            try await rerun.waitUntil(timeout: .seconds(120), "the second fetch") { store in
                let batch = store.jobs.filter { $0.batch == "again" }
                return batch.count >= 6 && batch.allSatisfy { $0.state.isTerminal }
            }
            try await rerun.stop()
            #expect(f.server.googleDriveStats().downloads == downloads)
            let skipped = f.jobs.jobs.filter { $0.batch == "again" && $0.result?["skipped"] == .string("unchanged") }
            #expect(skipped.count == 5)
            let docs = f.jobs.jobs.first { $0.batch == "again" && $0.source == "gdrive:drive:/Photos/" }?.result?["skipped_google_docs"]
            #expect(docs?.intValue == 1, "a Google Docs item without export is skipped and counted")
        }
    }

    @Test("one file by id or path; a Google Docs item without export is refused naming the option; a missing path fails")
    func singleItems() async throws {
        try await GoogleDriveWorkerFixture.run("single") { f in
            let (client, token) = Self.client(f)
            let bytes = GoogleDriveWorkerFixture.bytes(700_000, seed: 3)
            let file = try await client.multipartUpload(GoogleDriveNewFile(name: "it's.bin", parentID: "root"), bytes: bytes, accessToken: token)
            let doc = try await Self.document(f, name: "Sheet", parent: "root", token: token)
            let done = try await f.run([
                try f.spec(.fetch, source: "gdrive:drive:id:\(file.id)", to: f.folder + "/in/"),
                try f.spec(.fetch, source: "gdrive:drive:/it's.bin", to: f.folder + "/copy.bin"),
                try f.spec(.fetch, source: "gdrive:drive:id:\(doc)", to: f.folder + "/in/"),
                try f.spec(.fetch, source: "gdrive:drive:/nowhere.bin", to: f.folder + "/in/"),
            ], kind: .fetch)
            #expect(done[0].state == .succeeded && done[1].state == .succeeded)
            #expect(FileManager.default.contents(atPath: f.folder + "/in/it's.bin").map(Array.init) == bytes)
            #expect(FileManager.default.contents(atPath: f.folder + "/copy.bin").map(Array.init) == bytes)
            #expect(done[2].state == .failed && done[2].lastError?.contains("--option export=") == true)
            #expect(done[3].state == .failed && done[3].lastError?.contains("not_found") == true)
        }
    }

    @Test("the removal capability trashes a listed file by its id; one already gone is done; a path (never listed) is refused")
    func removal() async throws {
        try await GoogleDriveWorkerFixture.run("remove") { f in
            let (client, token) = Self.client(f)
            let file = try await client.multipartUpload(GoogleDriveNewFile(name: "old.txt", parentID: "root"), bytes: [1, 2, 3], accessToken: token)
            let remover = try #require(GoogleDriveProvider().remover(environment: f.environment))
            func entry(_ reference: String) -> RemoteEntry {
                RemoteEntry(path: "old.txt", isFolder: false, size: 3, modified: nil, reference: reference)
            }
            try await remover.remove(entry("gdrive:drive:id:\(file.id)"), logger: Logger(label: "test"))
            #expect(try await client.getFile(id: file.id, accessToken: token).trashed)
            // An id the service does not know (deleted meanwhile) is no failure: a resumed sync meets those.
            try await remover.remove(entry("gdrive:drive:id:gone0000"), logger: Logger(label: "test"))
            await #expect { try await remover.remove(entry("gdrive:drive:/old.txt"), logger: Logger(label: "test")) } throws: {
                ($0 as? JobFailure)?.code == "not_listed"
            }
        }
    }
}
