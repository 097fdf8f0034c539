import FerryCore
import FerryProviders
import FerryStore
import FerryTestSupport
import FerryTesting
import Foundation
import Testing

@testable import FerryWorker

/// Issue 36, effects fenced like events: a worker cut off from the database stops before every irreversible step
/// once its lease may have lapsed (another worker may be running the job by then), and a re-run that finds its own
/// content at the destination records success instead of writing it again.
@Suite("lease fence", .serialized)
struct LeaseFenceTests {
    // MARK: A lapsed worker reaches the commit point

    /// Runs `spec` first on a worker gated at the job's start until its lease is gone (its heartbeats fail from the
    /// claim on; `force` ends the lease at once instead of waiting for the deadline), then lets it run `make()`'s
    /// handler to the commit point; `noEffect` checks the destination then. A healthy worker then rescues and runs
    /// the job. Returns how the first attempt ended and the job as it settled.
    static func lapsedThenRescued(
        _ store: MemoryWorkerStore, _ spec: JobSpec, roots: LocalRoots, force: Bool = false, make: () -> any JobHandler,
        noEffect: () async throws -> Void
    ) async throws -> (first: Result<JobResult, any Error>?, job: MemoryJob) {
        let gated = GatedHandler(make())
        // Forced, the lease ends long before this worker's own rescue loop would find its heartbeat stale.
        var first = WorkerHarness.configuration(name: "lapsed", concurrency: 1, rescueAfter: force ? .seconds(30) : .milliseconds(1500))
        first.localRoots = roots
        let lapsed = WorkerHarness(store: store, handler: gated, configuration: first)
        let id = store.enqueue(spec).jobID
        try await lapsed.waitUntil(timeout: .seconds(300), "the first worker to claim") { $0.job(id)?.worker == "lapsed" }
        store.failHeartbeats(of: "lapsed")
        // The claim's generation, or an older one (a gap on a stalled machine fences it the same way).
        let generation = lapsed.worker.lease.generation
        if force { lapsed.worker.lease.revoke() }
        try await lapsed.waitUntil(timeout: .seconds(300), "its lease to lapse") { _ in
            lapsed.worker.lease.remaining(generation: generation) == nil
        }
        gated.open()
        try await lapsed.waitUntil(timeout: .seconds(300), "its attempt to end") { _ in gated.ended != nil }
        try await noEffect()
        try await lapsed.stop()

        // The lapsed worker's heartbeat made an hour old: the rescuer takes its job at once, and keeps a long lease of
        // its own (a loaded machine may starve a test process's heartbeat task for seconds).
        store.ageHeartbeat(of: "lapsed", by: 3600)
        var healthy = WorkerHarness.configuration(name: "rescuer", rescueAfter: .seconds(30))
        healthy.localRoots = roots
        let rescuer = WorkerHarness(store: store, handler: make(), configuration: healthy)
        let job = try await rescuer.settle([id], timeout: .seconds(300))[0]
        try await rescuer.stop()
        return (gated.ended, job)
    }

    static func isLeaseLapsed(_ ended: Result<JobResult, any Error>?) -> Bool {
        if case .failure(let error) = ended { return error is LeaseLapsed }
        return false
    }

    @Test("local directory: a lapsed worker does not rename into place; the rescuing worker leaves exactly one file", .tags(.fast))
    func localRename() async throws {
        let folder = try temporaryFolder("fence-local")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/src", withIntermediateDirectories: true)
        let bytes = Data(GoogleDriveWorkerFixture.bytes(200_000, seed: 36))
        try bytes.write(to: URL(fileURLWithPath: folder + "/src/photo.jpg"))
        var spec = try JobRequest(kind: .upload, source: folder + "/src/photo.jpg", to: folder + "/dst/").validated(
            jobID: UUIDv7.make(), now: Date(), currentDirectory: folder, inspectFile: LocalFileInspector.examine,
            providers: ProviderRegistry.standard)
        spec.maxAttempts = 5
        let target = folder + "/dst/photo.jpg"
        let (first, job) = try await Self.lapsedThenRescued(
            MemoryWorkerStore(), spec, roots: try LocalRoots(directories: [folder]), make: { LocalDirectoryUploadHandler() },
            noEffect: { #expect(!FileManager.default.fileExists(atPath: target), "the lapsed worker renamed into place") })
        #expect(Self.isLeaseLapsed(first), "\(String(describing: first))")
        #expect(job.state == .succeeded && job.attempt >= 2, "\(job.lastError ?? "")")
        // The lapsed attempt recorded nothing: its claim ended by rescue. (On a stalled machine the rescuer's own claim
        // may be rescued or released too before it succeeds.)
        #expect(Array(job.events.prefix(3)) == [.enqueued, .claimed, .rescued] && job.events.last == .succeeded, "\(job.events)")
        #expect(!job.events.contains(.failed) && !job.events.contains(.retryScheduled), "\(job.events)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/dst") == ["photo.jpg"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == bytes)
    }

    @Test("Google Drive: a lapsed worker does not create the file; the rescuing worker makes exactly one", .tags(.postgres))
    func driveCreate() async throws {
        try await GoogleDriveWorkerFixture.run("fence") { f in
            let bytes = GoogleDriveWorkerFixture.bytes(100_000, seed: 36)
            let path = try f.file("src/photo.jpg", bytes)
            let spec = try f.spec(.upload, source: path, to: "gdrive:drive:/Camera/")
            let (first, job) = try await Self.lapsedThenRescued(
                f.jobs, spec, roots: try LocalRoots(directories: [f.folder]), make: { f.handler(.upload) },
                noEffect: {
                    #expect(f.items().filter { $0.path == "/Camera/photo.jpg" }.isEmpty, "the lapsed worker created the file")
                    #expect(f.server.googleDriveStats().multipartUploads == 0)
                })
            #expect(Self.isLeaseLapsed(first), "\(String(describing: first))")
            #expect(job.state == .succeeded && job.attempt >= 2, "\(job.lastError ?? "")")
            #expect(f.items().filter { $0.path == "/Camera/photo.jpg" }.count == 1, "one file of the name")
            #expect(try f.stored("/Camera/photo.jpg") == bytes)
        }
    }

    @Test("Dropbox: a lapsed worker's entry is left out of the batch commit; the rescuing worker commits once", .tags(.postgres))
    func dropboxBatchEntry() async throws {
        try await GoogleDriveWorkerFixture.run("fence_dbx") { f in
            try await f.addDropboxAccount("photos")
            let path = try f.file("src/photo.jpg", GoogleDriveWorkerFixture.bytes(100_000, seed: 37))
            let spec = try f.spec(.upload, source: path, to: "dropbox:photos:/Camera/")
            // The batched path records the closed session before its commit: the lease is ended at once so that this
            // record still finds the claim (no rescue yet), and the commit is what must not happen.
            let (first, job) = try await Self.lapsedThenRescued(
                f.jobs, spec, roots: try LocalRoots(directories: [f.folder]), force: true,
                make: { f.handler(.upload, for: "dropbox:photos:/") },
                noEffect: {
                    let stats = f.server.stats()
                    #expect(stats.finishBatchEntries.isEmpty && stats.singleCommits == 0 && stats.filesCommitted == 0, "the lapsed worker committed")
                })
            #expect(Self.isLeaseLapsed(first), "\(String(describing: first))")
            #expect(job.state == .succeeded && job.attempt >= 2, "\(job.lastError ?? "")")
            let stats = f.server.stats()
            #expect(stats.filesCommitted == 1 && stats.commitsPerPath == ["/camera/photo.jpg": 1], "\(stats.commitsPerPath)")
        }
    }

    // MARK: A re-run after a commit whose outcome was lost

    @Test("Dropbox: a re-run after a committed but unrecorded upload finds its content and records success without sending it again", .tags(.postgres))
    func dropboxRerun() async throws {
        try await GoogleDriveWorkerFixture.run("rerun_dbx") { f in
            try await f.addDropboxAccount("photos")
            let path = try f.file("src/photo.jpg", GoogleDriveWorkerFixture.bytes(100_000, seed: 38))
            // autorename: a second commit of other bytes would be kept beside the first as `photo (1).jpg`.
            let spec = try f.spec(.upload, source: path, to: "dropbox:photos:/Camera/", options: ["autorename": .commandLine("true")])
            let id = f.jobs.enqueue(spec).jobID
            let roots = try LocalRoots(directories: [f.folder])
            // The first attempt commits, then its outcome is lost (as when the worker dies or its lease lapses then).
            let real = f.handler(.upload, for: "dropbox:photos:/")
            var configuration = WorkerHarness.configuration(name: "lost", concurrency: 1)
            configuration.localRoots = roots
            let lost = WorkerHarness(
                store: f.jobs,
                handler: TestHandler(usesLocalFiles: true) { job, context in
                    _ = try await real.run(job, context: context)
                    throw LeaseLost()
                }, configuration: configuration)
            try await lost.waitUntil(timeout: .seconds(300), "the first commit") { _ in f.server.stats().filesCommitted == 1 }
            try await lost.waitUntil(timeout: .seconds(300), "the first attempt to end") { _ in lost.worker.running.count == 0 }
            try await lost.stop()
            let sessions = f.server.stats().sessionsStarted

            f.jobs.ageHeartbeat(of: "lost", by: 3600)
            configuration = WorkerHarness.configuration(name: "rerun", rescueAfter: .seconds(30))
            configuration.localRoots = roots
            let rerun = WorkerHarness(store: f.jobs, handler: f.handler(.upload, for: "dropbox:photos:/"), configuration: configuration)
            let job = try await rerun.settle([id], timeout: .seconds(300))[0]
            try await rerun.stop()
            #expect(job.state == .succeeded && job.attempt >= 2, "\(job.lastError ?? "")")
            #expect(job.result?["skipped"] == .string("unchanged"), "\(String(describing: job.result))")
            let stats = f.server.stats()
            #expect(stats.sessionsStarted == sessions && stats.finishBatchEntries.count == 1, "the re-run sent nothing, committed nothing")
            #expect(stats.filesCommitted == 1 && stats.commitsPerPath == ["/camera/photo.jpg": 1], "\(stats.commitsPerPath)")
        }
    }
}
