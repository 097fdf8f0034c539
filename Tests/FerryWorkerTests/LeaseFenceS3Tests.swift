import FerryCore
import FerryS3
import FerryTestSupport
import FerryTesting
import Foundation
import Testing

@testable import FerryWorker

/// Issue 36 for S3 (moto): a lapsed worker stores no object, neither by `PutObject` nor by
/// `CompleteMultipartUpload`, and a re-run after a stored but unrecorded upload succeeds without storing it again.
@Suite("lease fence: S3", .tags(.postgres), .serialized)
struct LeaseFenceS3Tests {
    static func absent(_ client: S3Client, _ bucket: String, _ key: String) async -> Bool {
        do {
            _ = try await client.headObject(bucket: bucket, key: key)
            return false
        } catch {
            return error.code == .noSuchKey
        }
    }

    @Test("PutObject and CompleteMultipartUpload: a lapsed worker stores nothing; the rescuing worker stores the object once")
    func lapsedStoresNothing() async throws {
        try await GoogleDriveWorkerFixture.run("fence_s3") { f in
            let (bucket, client) = try await f.addS3Account("s3")
            let roots = try LocalRoots(directories: [f.folder])
            // One PutObject (its lease lapses by time), and a multipart upload of two parts (ended at once, so that
            // the parts' progress events still find the claim and the completion is what must not happen).
            for (name, size, force) in [("small.jpg", 100_000, false), ("large.bin", 6 * 1024 * 1024 + 5, true)] {
                let bytes = GoogleDriveWorkerFixture.bytes(size, seed: UInt64(size))
                let path = try f.file("src/\(name)", bytes)
                let key = "camera/\(name)"
                let (first, job) = try await LeaseFenceTests.lapsedThenRescued(
                    f.jobs, try f.spec(.upload, source: path, to: "s3:s3:\(bucket)/camera/"), roots: roots, force: force,
                    make: { f.handler(.upload, for: "s3:s3:\(bucket)/") },
                    noEffect: { #expect(await Self.absent(client, bucket, key), "\(name): the lapsed worker stored the object") })
                #expect(LeaseFenceTests.isLeaseLapsed(first), "\(name): \(String(describing: first))")
                #expect(job.state == .succeeded && job.attempt >= 2, "\(name): \(job.lastError ?? "")")
                let stored = try await client.headObject(bucket: bucket, key: key)
                #expect(stored.contentLength == Int64(size), "\(name)")
            }
        }
        }

    @Test("a re-run after a stored but unrecorded upload finds the object and records success without storing it again")
    func rerunFindsObject() async throws {
        try await GoogleDriveWorkerFixture.run("rerun_s3") { f in
            let (bucket, client) = try await f.addS3Account("s3")
            let path = try f.file("src/photo.jpg", GoogleDriveWorkerFixture.bytes(100_000, seed: 39))
            let id = f.jobs.enqueue(try f.spec(.upload, source: path, to: "s3:s3:\(bucket)/camera/")).jobID
            let roots = try LocalRoots(directories: [f.folder])
            let real = f.handler(.upload, for: "s3:s3:\(bucket)/")
            var configuration = WorkerHarness.configuration(name: "lost", concurrency: 1)
            configuration.localRoots = roots
            // The first attempt stores the object, then its outcome is lost.
            let first = GatedHandler(
                TestHandler(usesLocalFiles: true) { job, context in
                    _ = try await real.run(job, context: context)
                    throw LeaseLost()
                })
            first.open()
            let lost = WorkerHarness(store: f.jobs, handler: first, configuration: configuration)
            try await lost.waitUntil(timeout: .seconds(300), "the first attempt to end") { _ in first.ended != nil }
            try await lost.stop()
            let stored = try await client.headObject(bucket: bucket, key: "camera/photo.jpg")

            f.jobs.ageHeartbeat(of: "lost", by: 3600)
            configuration = WorkerHarness.configuration(name: "rerun", rescueAfter: .seconds(30))
            configuration.localRoots = roots
            let rerun = WorkerHarness(store: f.jobs, handler: f.handler(.upload, for: "s3:s3:\(bucket)/"), configuration: configuration)
            let job = try await rerun.settle([id], timeout: .seconds(300))[0]
            try await rerun.stop()
            #expect(job.state == .succeeded && job.attempt >= 2, "\(job.lastError ?? "")")
            #expect(job.result?["skipped"] == .string("unchanged"), "\(String(describing: job.result))")
            let after = try await client.headObject(bucket: bucket, key: "camera/photo.jpg")
            #expect(after.lastModified == stored.lastModified && after.etag == stored.etag, "not stored again")
        }
    }
}
