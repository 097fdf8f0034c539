import AsyncHTTPClient
import FerryCore
import FerryProviders
import FerryStore
import FerryTestSupport
import FerryTesting
import FerryWorker
import Foundation
import Testing

/// Copies come from capabilities: the test provider declares a copy reader and writer in its own folder, and a
/// real worker (the registry's handlers, not a scripted one) copies between it and itself, a folder fanned out
/// into children, with no code in Ferry naming it.
@Suite("the memory provider as a copy source and destination, through a real worker", .tags(.fast))
struct MemoryProviderCopyTests {
    let registry = ProviderRegistry(ProviderRegistry.standard.providers + [MemoryProvider()])

    func spec(_ source: String, _ destination: String, batch: String) throws -> JobSpec {
        try JobRequest(kind: .copy, source: source, to: destination, batch: batch, options: ["if_changed": .json(.bool(true))]).validated(
            jobID: UUID(), now: Date(), currentDirectory: "/",
            inspectFile: { _ in .failure(.notRegularFile(kind: "directory")) }, providers: registry)
    }

    @Test("a folder copy fans out through the reader and each file is written by the writer; a second run copies nothing")
    func folderCopy() async throws {
        let account = "m\(UInt32.random(in: 0...UInt32.max))"
        let blobs = MemoryBlobs.shared
        for (name, size) in [("a.jpg", 10), ("sub/b.jpg", 5000), ("sub/deeper/c.bin", 0)] {
            blobs.put("memory:\(account):/src/\(name)", (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        }
        let store = MemoryWorkerStore()
        store.setAccount(MemoryAccount(name: account, provider: "memory"))
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        let handlers = JobHandlers(registry: registry, environment: ProviderEnvironment(httpClient: http, tokens: nil, chunkSize: 1 << 20))
        let harness = WorkerHarness(store: store, handlers: handlers)
        do {
            let parent = try spec("memory:\(account):/src/", "memory:\(account):/dst/", batch: "copy-\(account)")
            #expect(parent.kind == .copy && parent.destination == "memory:\(account):/dst/")
            let id = store.enqueue(parent).jobID
            try await harness.settle([id], timeout: .seconds(30))
            try await harness.waitUntil(timeout: .seconds(30), "three children to succeed") { store in
                store.jobs.filter { $0.batch == "copy-\(account)" }.filter { $0.jobID != id && $0.state == .succeeded }.count == 3
            }
            for (name, size) in [("a.jpg", 10), ("sub/b.jpg", 5000), ("sub/deeper/c.bin", 0)] {
                let copied = try #require(blobs.get("memory:\(account):/dst/\(name)"), "\(name) was copied")
                #expect(copied.bytes == (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            }
            // The same folder again: each child is keyed by its source's version, so none is enqueued or written.
            let writes = blobs.list("memory:\(account):/dst/").map(\.blob.version)
            let again = store.enqueue(try spec("memory:\(account):/src/", "memory:\(account):/dst/", batch: "again-\(account)")).jobID
            try await harness.settle([again], timeout: .seconds(30))
            #expect(store.job(again)?.state == .succeeded)
            #expect(store.jobs.filter { $0.batch == "again-\(account)" }.count == 1)
            #expect(blobs.list("memory:\(account):/dst/").map(\.blob.version) == writes)
        } catch {
            try? await harness.stop()
            try? await http.shutdown()
            throw error
        }
        try await harness.stop()
        try await http.shutdown()
    }

    @Test("a copy whose source was deleted fails for good, naming the source")
    func missingSource() async throws {
        let account = "m\(UInt32.random(in: 0...UInt32.max))"
        let store = MemoryWorkerStore()
        store.setAccount(MemoryAccount(name: account, provider: "memory"))
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        let handlers = JobHandlers(registry: registry, environment: ProviderEnvironment(httpClient: http, tokens: nil, chunkSize: 1 << 20))
        let harness = WorkerHarness(store: store, handlers: handlers)
        let id = store.enqueue(try spec("memory:\(account):/gone.jpg", "memory:\(account):/dst/", batch: "gone-\(account)")).jobID
        let settled = try? await harness.settle([id], timeout: .seconds(30))
        try await harness.stop()
        try await http.shutdown()
        let job = try #require(settled?.first)
        #expect(job.state == .failed)
        #expect(job.lastError?.contains("source_not_found") == true && job.lastError?.contains("gone.jpg") == true)
    }
}
