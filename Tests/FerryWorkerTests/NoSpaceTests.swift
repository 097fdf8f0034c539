import FerryCore
import FerryProviders
import FerryStore
import FerryTestSupport
import FerryTesting
import Foundation
import Testing

@testable import FerryWorker

#if canImport(Glibc)
    import Glibc
#endif

/// A full disk (`ENOSPC`, `EDQUOT`) or too few file descriptors (`EMFILE`) is the machine's shortage, not the job's
/// fault: the job is deferred (no attempt used) with a growing backoff, a fetch's partial file is removed, the
/// shortage is counted, and the job succeeds once the resource is back. In process: a real worker over the memory
/// store, the real web fetch handler against an in-process dev server.
@Suite("resource shortages: full disks and file descriptors")
struct NoSpaceTests {
    /// A configuration whose shortage backoff is an hour: the test moves the store's clock instead of waiting.
    static func hourBackoff(_ configuration: inout WorkerConfiguration) {
        configuration.shortageBackoff = RetryPolicy(baseSeconds: 3600, capSeconds: 3600, minimumSeconds: 1)
    }

    @Test(
        "a handler's failed system call that reports a shortage defers the job without using an attempt, counted", .tags(.fast),
        arguments: [(ENOSPC, "no_space", "ferry_worker_no_space_total"), (EDQUOT, "no_space", "ferry_worker_no_space_total"),
                    (EMFILE, "fd_limit", "ferry_worker_fd_limit_total")])
    func handlerShortage(code: Int32, reason: String, metric: String) async throws {
        let store = MemoryWorkerStore()
        // The first attempt runs short; the one after the deferral does not.
        let handler = TestHandler { job, _ in
            if store.job(job.jobID)?.events.contains(.deferred) != true {
                throw POSIXFailure(operation: "write", path: "/srv/in/a.jpg", code: code)
            }
            return JobResult(bytes: 1)
        }
        var configuration = WorkerHarness.configuration()
        Self.hourBackoff(&configuration)
        let harness = WorkerHarness(store: store, handler: handler, configuration: configuration)
        let id = harness.store.enqueue(JobSpec.test(maxAttempts: 1)).jobID
        try await harness.waitUntil("the job deferred") { $0.job(id)?.events.contains(.deferred) == true }
        let deferred = try #require(harness.store.job(id))
        #expect(deferred.state == .queued && deferred.attempt == 0, "no attempt used: \(deferred)")
        #expect(deferred.lastError?.hasPrefix(reason + ": ") == true, "\(deferred.lastError ?? "")")
        #expect(deferred.runAt.timeIntervalSince(harness.store.now) > 60, "the first backoff is long: \(deferred.runAt)")
        let scrape = PrometheusText(String(decoding: harness.worker.metrics.registry.emitToBuffer(), as: UTF8.self))
        #expect(scrape.value(metric, ["kind": "fetch", "queue": "default"]) == 1)

        // With one attempt allowed, a failure would have ended the job; the deferral did not use it.
        harness.store.advance(by: 7200)
        let done = try await harness.settle([id])
        try await harness.stop()
        #expect(done.first?.state == .succeeded && done.first?.attempt == 1)
        #expect(done.first?.events == [.enqueued, .claimed, .deferred, .claimed, .succeeded])
    }

    @Test("the backoff of a shortage grows from 1 to 15 minutes per job, with a little jitter, and starts over", .tags(.fast))
    func backoffGrows() {
        let backoff = ShortageBackoff(policy: WorkerConfiguration().shortageBackoff)
        let job = UUID()
        let ceilings: [Double] = [60, 120, 240, 480, 900, 900]
        for ceiling in ceilings {
            let delay = backoff.next(job)
            #expect(delay <= ceiling && delay >= ceiling * 0.8, "\(delay) for a ceiling of \(ceiling)")
        }
        #expect(backoff.next(UUID()) <= 60, "another job starts at the first delay")
        backoff.forget(job)
        #expect(backoff.next(job) <= 60, "a job that ended otherwise starts over")
    }

    @Test(
        "a fetch whose write finds the disk full (injected ENOSPC) removes its partial file, is deferred no_space, and succeeds once space is back",
        .tags(.fast))
    func injectedFetch() async throws {
        let root = try temporaryFolder("no-space-injected")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let bytes = WebFetchHarness.bytes(2 << 20, seed: 36)
        try await WebFetchHarness.run(root: root, configure: Self.hourBackoff) { fixture in
            // The job's id is known only once enqueued: arm the fault before the worker can claim it.
            fixture.store.setQueuePaused("default", paused: true)
            let id = try fixture.fetch("big/file.bin", bytes: bytes, to: root + "/in/file.bin")
            LocalWriteFaults.inject(ENOSPC, afterBytes: 1 << 20, job: id)
            defer { LocalWriteFaults.clear(job: id) }
            fixture.store.setQueuePaused("default", paused: false)
            try await Self.expectDeferredNoSpace(fixture, id, folder: root + "/in")

            LocalWriteFaults.clear(job: id)
            fixture.store.advance(by: 7200)
            try await fixture.harness.settle([id], timeout: .seconds(300))
            #expect(fixture.store.job(id)?.state == .succeeded)
            #expect(try Data(contentsOf: URL(fileURLWithPath: root + "/in/file.bin")) == Data(bytes))
            #expect(WebFetchHarness.partFiles(root + "/in").isEmpty)
        }
    }

    @Test(
        "a fetch into a 1 MiB tmpfs: no partial file left, deferred no_space, counted; after the mount grows it succeeds (root only)",
        .tags(.process))
    func tmpfsFetch() async throws {
        let root = try temporaryFolder("no-space-tmpfs")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let mount = root + "/small"
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        guard geteuid() == 0, await Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mount]) else {
            print("NoSpaceTests.tmpfsFetch skipped: mounting a tmpfs needs root (uid \(geteuid()))")
            return
        }
        defer { Self.unmount(mount) }
        let bytes = WebFetchHarness.bytes(2 << 20, seed: 37)
        try await WebFetchHarness.run(root: mount, configure: Self.hourBackoff) { fixture in
            let id = try fixture.fetch("big/tmpfs.bin", bytes: bytes, to: mount + "/file.bin")
            try await Self.expectDeferredNoSpace(fixture, id, folder: mount)

            #expect(await Self.run("/bin/mount", ["-o", "remount,size=8m", mount]), "the tmpfs grows")
            fixture.store.advance(by: 7200)
            try await fixture.harness.settle([id], timeout: .seconds(300))
            #expect(fixture.store.job(id)?.state == .succeeded)
            #expect(try Data(contentsOf: URL(fileURLWithPath: mount + "/file.bin")) == Data(bytes))
            #expect(WebFetchHarness.partFiles(mount).isEmpty)
        }
    }

    @Test(
        "an upload into a local folder on a 1 MiB tmpfs: its temporary copy removed, deferred no_space; after the mount grows it succeeds (root only)",
        .tags(.process))
    func tmpfsLocalUpload() async throws {
        let root = try temporaryFolder("no-space-upload")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let mount = root + "/small"
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/src", withIntermediateDirectories: true)
        guard geteuid() == 0, await Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mount]) else {
            print("NoSpaceTests.tmpfsLocalUpload skipped: mounting a tmpfs needs root (uid \(geteuid()))")
            return
        }
        defer { Self.unmount(mount) }
        let bytes = Data(WebFetchHarness.bytes(2 << 20, seed: 38))
        try bytes.write(to: URL(fileURLWithPath: root + "/src/file.bin"))
        try await WebFetchHarness.run(root: root, configure: Self.hourBackoff) { fixture in
            let spec = try JobRequest(kind: .upload, source: root + "/src/file.bin", to: "file://" + mount + "/").validated(
                jobID: UUIDv7.make(), now: Date(), currentDirectory: root, inspectFile: LocalFileInspector.examine,
                providers: ProviderRegistry.standard)
            let id = fixture.store.enqueue(spec).jobID
            try await fixture.harness.waitUntil(timeout: .seconds(300), "the upload deferred") { $0.job(id)?.events.contains(.deferred) == true }
            let job = try #require(fixture.store.job(id))
            #expect(job.state == .queued && job.attempt == 0, "deferred, no attempt used: \(job)")
            #expect(job.lastError?.hasPrefix("no_space: ") == true, "\(job.lastError ?? "")")
            #expect(try FileManager.default.contentsOfDirectory(atPath: mount).isEmpty, "the temporary copy is removed")
            #expect(fixture.scrape().value("ferry_worker_no_space_total", ["kind": "upload", "queue": "default"]) == 1)

            #expect(await Self.run("/bin/mount", ["-o", "remount,size=8m", mount]), "the tmpfs grows")
            fixture.store.advance(by: 7200)
            try await fixture.harness.settle([id], timeout: .seconds(300))
            #expect(fixture.store.job(id)?.state == .succeeded)
            #expect(try Data(contentsOf: URL(fileURLWithPath: mount + "/file.bin")) == bytes)
            #expect(try FileManager.default.contentsOfDirectory(atPath: mount) == ["file.bin"])
        }
    }

    /// Waits for `id`'s first deferral and checks it: `no_space`, no attempt used, no partial file in `folder`, counted.
    static func expectDeferredNoSpace(_ fixture: WebFetchHarness, _ id: UUID, folder: String) async throws {
        try await fixture.harness.waitUntil(timeout: .seconds(300), "the fetch deferred") { $0.job(id)?.events.contains(.deferred) == true }
        let job = try #require(fixture.store.job(id))
        #expect(job.state == .queued && job.attempt == 0, "deferred, no attempt used: \(job)")
        #expect(job.lastError?.hasPrefix("no_space: ") == true, "\(job.lastError ?? "")")
        #expect(WebFetchHarness.partFiles(folder).isEmpty, "the partial file is removed")
        #expect(!FileManager.default.fileExists(atPath: folder + "/file.bin"))
        #expect(fixture.scrape().value("ferry_worker_no_space_total", ["kind": "fetch", "queue": "default"]) == 1)
    }

    /// Runs a command; true when it exits 0.
    /// Detaches the mount at once (`umount -l` does not wait), before the defers that remove its folder.
    static func unmount(_ path: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/umount")
        process.arguments = ["-l", path]
        guard (try? process.run()) != nil else { return }
        process.waitUntilExit()
    }

    static func run(_ executable: String, _ arguments: [String]) async -> Bool {
        (try? await ChildProcess.run(executable, arguments))?.status == 0
    }
}
