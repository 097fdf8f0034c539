import FerryClient
import FerryTestSupport
import Foundation
import Testing

/// The Swift API, used as an app would: only `import FerryClient` (no @testable), a real database and a real
/// worker in process (`ClientTestWorker`).
@Suite("FerryClient: the public Swift API", .tags(.postgres))
struct FerryClientTests {
    @Test("enqueue a batch, wait for it, read job states; invalid requests enqueue nothing; keys are idempotent")
    func enqueueAndWait() async throws {
        let db = try await TestDatabase.make("client")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-client-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for index in 0..<3 { try Data(repeating: UInt8(index), count: 50_000).write(to: URL(fileURLWithPath: "\(dir)/\(index).jpg")) }

        let ferry = FerryClient(databaseURL: db.url, providers: .standard)
        defer { ferry.close() }

        // One bad request refuses the call, naming it, and writes nothing.
        do {
            _ = try await ferry.enqueue([
                JobRequest(kind: .upload, source: "\(dir)/0.jpg", to: "\(dir)/out/", batch: "app"),
                JobRequest(kind: .upload, source: "\(dir)/missing.jpg", to: "\(dir)/out/", batch: "app"),
            ])
            Issue.record("an invalid request was accepted")
        } catch let error as FerryClientError {
            #expect(error.code == .invalidRequests)
            #expect(error.issues.count == 1 && error.issues[0].line == 2 && error.issues[0].field == "source", "\(error)")
        }
        #expect(try await ferry.batch("app") == nil, "nothing was enqueued")

        let requests = (0..<3).map { JobRequest(kind: .upload, source: "\(dir)/\($0).jpg", to: "\(dir)/out/", batch: "app", idempotencyKey: "app-\($0)") }
        let jobs = try await ferry.enqueue(requests)
        #expect(jobs.count == 3 && jobs.allSatisfy(\.created))
        let again = try await ferry.enqueue(requests)
        #expect(again.map(\.id) == jobs.map(\.id) && again.allSatisfy { !$0.created }, "the same keys name the same jobs")
        #expect(try await ferry.job(jobs[0].id)?.status == "queued")

        await #expect(throws: FerryClientError.self) {
            _ = try await ferry.waitForBatch("app", timeout: .milliseconds(300))
        }

        let batch = try await ClientTestWorker.during(db, root: dir) { try await ferry.waitForBatch("app", timeout: .seconds(300)) }
        #expect(batch.succeededWhole && batch.jobs == 3 && batch.percent == 100)
        #expect(batch.bytesDone == 150_000)
        for (index, job) in jobs.enumerated() {
            let progress = try #require(try await ferry.job(job.id))
            #expect(progress.status == "succeeded" && progress.isFinished && progress.kind == .upload)
            #expect(FileManager.default.contents(atPath: "\(dir)/out/\(index).jpg") == Data(repeating: UInt8(index), count: 50_000))
        }
        do {
            _ = try await ferry.waitForBatch("no-such-batch")
            Issue.record("waited for a batch that does not exist")
        } catch let error as FerryClientError {
            #expect(error.code == .notFound)
        }
    }
}
