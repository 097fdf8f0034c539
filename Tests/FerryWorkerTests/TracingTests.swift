import FerryCore
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// OpenTelemetry spans from real `ferry worker` processes, received by a real OTLP/HTTP receiver on loopback.
@Suite("tracing", .tags(.postgres, .process))
struct TracingTests {
    static let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
    static let producerSpan = "00f067aa0ba902b7"

    static func environment(_ receiver: OTLPReceiver) -> [String: String] {
        DropboxAccounts.environment.merging([
            "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint,
            "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json",
            // Export ended spans within 100 ms, so chunk spans are out before the kill.
            "OTEL_BSP_SCHEDULE_DELAY": "100",
            // The receiver lives in the test process, whose tasks can be held up for seconds on a busy machine:
            // the exporter waits for it rather than dropping the batch.
            "OTEL_EXPORTER_OTLP_TIMEOUT": "120000",
            "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "120000",
        ]) { _, new in new }
    }

    @Test("an upload retried after kill -9 is one trace: two attempt spans from two workers, chunk and commit spans under them, no secrets")
    func killedUploadIsOneTrace() async throws {
        let receiver = try await OTLPReceiver.start()
        defer { receiver.stop() }
        // Slow requests keep the upload in flight; short-lived tokens make the workers refresh (a traced step).
        let server = try await DevServerProcess(["--latency-ms", "200", "--token-lifetime", "3"])
        let db = try await TestDatabase.make("trace_kill")
        let refreshToken = try await DropboxAccounts.add("vault", server: server, databaseURL: db.url)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-trace-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let chunk = 1024 * 1024
        try DropboxAccounts.randomFile(dir + "/big.bin", size: 40 * chunk + 77)
        let traceparent = "00-\(Self.traceID)-\(Self.producerSpan)-01"
        let enqueue = try await FerryProcess.run(
            ["enqueue", "upload", dir + "/big.bin", "--to", "dropbox:vault:/big.bin", "--traceparent", traceparent], databaseURL: db.url)
        #expect(enqueue.status == 0, "\(enqueue.stderr)")

        // The first attempt's upload would take minutes (a busy test task still kills it midway); lifted after.
        try await server.setFaults(["latency_milliseconds": .int(200), "upload_bytes_per_second": .int(256 * 1024)])
        // Sequential sessions: the check below follows one chunk after another (a concurrent session resumes only
        // the chunks not recorded, which need not be contiguous).
        let environment = Self.environment(receiver).merging(["FERRY_DROPBOX_PARALLEL_APPENDS": "1"]) { $1 }
        let victim = try TestWorker.transfers(db, name: "victim", ["--chunk-size", "1"], environment: environment)
        try await eventually(timeout: .seconds(300), "chunks recorded and their spans exported") {
            let recorded = try await count(db, "SELECT count(*) FROM ferry.jobs WHERE bytes_done >= $1", [Int64(3 * chunk)]) == 1
            return try recorded && receiver.spans().contains { $0.name == "ferry.upload.chunk" && $0.instance == "victim" }
        }
        victim.signal(SIGKILL)
        _ = try await victim.waitForExit()
        try await server.setFaults(["latency_milliseconds": .int(200)])

        let survivor = try TestWorker.transfers(db, name: "survivor", ["--chunk-size", "1"], environment: environment)
        try await eventually(timeout: .seconds(300), "the upload to finish") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 1
        }
        survivor.signal(SIGTERM)
        #expect(try await survivor.waitForExit() == 0, "\(survivor.log)")
        #expect(try await count(db, "SELECT attempt FROM ferry.jobs") == 2)
        let jobID = try await db.query("SELECT job_id::text FROM ferry.jobs").rows[0].decode(String.self, at: 0)

        let spans = try receiver.spans().filter { $0.name.hasPrefix("ferry.") }
        #expect(!spans.isEmpty)
        #expect(spans.allSatisfy { $0.traceID == Self.traceID }, "every span is in the trace given at enqueue")

        let attempts = spans.filter { $0.name == "ferry.job.attempt" }
        #expect(attempts.count == 2, "one span per attempt: \(attempts.map(\.attributes))")
        guard attempts.count == 2,
            let lost = attempts.first(where: { $0.attributes["ferry.job.attempt"] == "1" }),
            let second = attempts.first(where: { $0.attributes["ferry.job.attempt"] == "2" })
        else { return }
        #expect(Set(attempts.compactMap { $0.attributes["ferry.worker"] }) == ["victim", "survivor"])
        #expect(lost.attributes["ferry.worker"] == "victim" && second.attributes["ferry.worker"] == "survivor")
        for attempt in attempts {
            #expect(attempt.parentSpanID == Self.producerSpan, "attempts are children of the producer's span")
            #expect(attempt.attributes["ferry.job.id"] == jobID)
            #expect(attempt.attributes["ferry.job.kind"] == "upload")
            #expect(attempt.attributes["ferry.queue"] == "default")
            #expect(attempt.attributes["ferry.account"] == "vault")
        }
        // The dead worker's attempt, rebuilt by the survivor from the event log.
        #expect(lost.statusCode == 2 && lost.statusMessage.contains("worker lost"), "\(lost.statusMessage)")
        #expect(lost.instance == "survivor" && lost.attributes["ferry.attempt.rebuilt_by"] == "survivor")
        #expect(lost.startNanos < lost.endNanos && lost.endNanos <= second.startNanos, "claim time to rescue time, before the retry")
        #expect(second.statusCode == 1 && second.attributes["ferry.outcome"] == "succeeded")
        #expect(second.attributes["ferry.bytes"] == String(40 * chunk + 77))

        // The victim's chunk spans that ended before the kill point at its attempt span id, which the rebuilt span
        // names and links to.
        let victimChunks = spans.filter { $0.name == "ferry.upload.chunk" && $0.instance == "victim" }
        #expect(!victimChunks.isEmpty)
        let lostSpanID = lost.attributes["ferry.attempt.lost_span_id"]
        #expect(lostSpanID != nil)
        #expect(victimChunks.allSatisfy { $0.parentSpanID == lostSpanID }, "the victim's chunks hang under its attempt")
        #expect(lost.links.contains { $0.traceID == Self.traceID && $0.spanID == lostSpanID })

        // The survivor's chunks and the commit are children of its attempt.
        let survivorChunks = spans.filter { $0.name == "ferry.upload.chunk" && $0.instance == "survivor" }
        #expect(!survivorChunks.isEmpty)
        #expect(survivorChunks.allSatisfy { $0.parentSpanID == second.spanID })
        // The survivor resumed at the recorded offset: its chunk spans cover the rest of the file without a gap.
        let resumedRanges = survivorChunks.compactMap { span -> (Int64, Int64)? in
            guard let offset = span.attributes["ferry.offset"].flatMap(Int64.init), let bytes = span.attributes["ferry.bytes"].flatMap(Int64.init)
            else { return nil }
            return (offset, offset + bytes)
        }.sorted { $0.0 < $1.0 }
        #expect(resumedRanges.count == survivorChunks.count)
        #expect(resumedRanges.last?.1 == Int64(40 * chunk + 77), "the last chunk span ends at the file's end")
        #expect(zip(resumedRanges, resumedRanges.dropFirst()).allSatisfy { $0.1 == $1.0 }, "one span per chunk, contiguous")
        #expect((resumedRanges.first?.0 ?? 0) > 0, "resumed, not restarted")
        let commits = spans.filter { $0.name == "ferry.upload.commit" }
        #expect(commits.count == 1 && commits.first?.parentSpanID == second.spanID)
        #expect(spans.contains { $0.name == "ferry.token.refresh" && $0.attributes["ferry.account"] == "vault" })

        // No secret anywhere in what was exported.
        var secrets = try server.issuedTokens() + [refreshToken, DropboxAccounts.secretKey]
        secrets.append(try String(contentsOfFile: server.secretOptions[1], encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines))
        let exported = receiver.requests.joined()
        for secret in secrets where !secret.isEmpty {
            #expect(!exported.contains(secret), "a secret was exported")
        }
    }

    @Test("without OTEL_EXPORTER_OTLP_ENDPOINT nothing is sent and nothing is recorded for tracing; with it, the same job is traced")
    func offByDefault() async throws {
        let receiver = try await OTLPReceiver.start()
        defer { receiver.stop() }
        let db = try await TestDatabase.make("trace_off")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-trace-off-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = FileManager.default.createFile(atPath: dir + "/a.bin", contents: Data(repeating: 1, count: 100))

        // Every OTEL_* setting but the endpoint: the exporter would go to this receiver if tracing were on.
        var quiet = Self.environment(receiver)
        quiet["OTEL_EXPORTER_OTLP_ENDPOINT"] = nil
        let off = try TestWorker.transfers(db, name: "quiet", ["--handler", "progress:3"], environment: quiet)
        let first = try await FerryProcess.run(["enqueue", "upload", dir + "/a.bin", "--to", dir + "/out1/"], databaseURL: db.url)
        #expect(first.status == 0, "\(first.stderr)")
        try await eventually(timeout: .seconds(300), "the job to finish") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 1
        }
        off.signal(SIGTERM)
        #expect(try await off.waitForExit() == 0, "\(off.log)")
        #expect(receiver.requests.isEmpty, "nothing was sent")
        #expect(try await count(db, "SELECT count(*) FROM ferry.events WHERE type = 'progress'") >= 3)
        #expect(try await count(db, "SELECT count(*) FROM ferry.events WHERE data ? 'span_id'") == 0, "no span ids recorded")

        // The control: the same with the endpoint set is traced, in the trace derived from the job id.
        // Headers often carry an API key: swift-otel's diagnostics (made verbose here) must not log their value.
        var traced = Self.environment(receiver)
        traced["OTEL_EXPORTER_OTLP_HEADERS"] = "x-api-key=sekrit-header-value-42"
        traced["OTEL_LOG_LEVEL"] = "debug"
        let on = try TestWorker.transfers(db, name: "traced", ["--handler", "progress:3"], environment: traced)
        let second = try await FerryProcess.run(["enqueue", "upload", dir + "/a.bin", "--to", dir + "/out2/"], databaseURL: db.url)
        #expect(second.status == 0, "\(second.stderr)")
        let jobID = second.stdout.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        try await eventually(timeout: .seconds(300), "the second job to finish") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 2
        }
        on.signal(SIGTERM)
        #expect(try await on.waitForExit() == 0, "\(on.log)")
        #expect(on.log.contains("Configuration updated from environment"), "the diagnostics were on")
        #expect(!on.log.contains("sekrit-header-value-42"), "no header value in the log")
        let attempts = try receiver.spans().filter { $0.name == "ferry.job.attempt" }
        #expect(attempts.count == 1)
        #expect(attempts.first?.attributes["ferry.job.id"] == jobID)
        #expect(attempts.first?.traceID == jobID.replacingOccurrences(of: "-", with: ""), "no traceparent given: the trace id is the job id")
        #expect(try await count(db, "SELECT count(*) FROM ferry.events WHERE data->>'span_id' = $1", [attempts.first?.spanID ?? "-"]) >= 3)
    }

    @Test("a folder fetch's children join the parent's trace under the attempt that listed them; downloads make checkpoint spans")
    func fanOutJoinsTrace() async throws {
        let receiver = try await OTLPReceiver.start()
        defer { receiver.stop() }
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("trace_fanout")
        try await DropboxAccounts.add("box", server: server, databaseURL: db.url)
        try await DropboxFetchTests.seed(server, account: "box", folder: "/Trip", count: 3, size: 5000)
        let dir = try temporaryFolder("trace")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let parent = try await DropboxFetchTests.enqueueFetch(
            db, "dropbox:box:/Trip", to: dir + "/out/", ["--batch", "trip", "--traceparent", "00-\(Self.traceID)-\(Self.producerSpan)-01"])
        let worker = try TestWorker.transfers(db, name: "lister", ["--concurrency", "4"], environment: Self.environment(receiver))
        try await DropboxFetchTests.waitForBatch(db, "trip")
        worker.signal(SIGTERM)
        #expect(try await worker.waitForExit() == 0, "\(worker.log)")

        let spans = try receiver.spans()
        let attempts = spans.filter { $0.name == "ferry.job.attempt" }
        #expect(attempts.count == 4, "the listing and three files")
        #expect(attempts.allSatisfy { $0.traceID == Self.traceID })
        let listing = try #require(attempts.first { $0.attributes["ferry.job.id"] == parent })
        #expect(listing.parentSpanID == Self.producerSpan)
        let children = attempts.filter { $0.attributes["ferry.job.id"] != parent }
        #expect(children.count == 3)
        #expect(children.allSatisfy { $0.parentSpanID == listing.spanID }, "children hang under the attempt that found them")
        // Each child's enqueued event names that span.
        let stored = try await count(
            db, "SELECT count(*) FROM ferry.events WHERE version = 1 AND data->>'traceparent' = $1",
            ["00-\(Self.traceID)-\(listing.spanID)-01"])
        #expect(stored == 3)
        for child in children {
            let checkpoints = spans.filter { $0.name == "ferry.download.checkpoint" && $0.parentSpanID == child.spanID }
            #expect(!checkpoints.isEmpty, "a download makes checkpoint spans")
            #expect(checkpoints.compactMap { $0.attributes["ferry.bytes"].flatMap(Int.init) }.reduce(0, +) == 5000)
        }
    }

    @Test("an S3 multipart upload: one span per part and the completion under the attempt; the secret key is never exported")
    func s3Parts() async throws {
        let receiver = try await OTLPReceiver.start()
        defer { receiver.stop() }
        let setup = try await S3TransferTests.setUp("trace_s3")
        defer { try? FileManager.default.removeItem(atPath: setup.dir) }
        let file = setup.dir + "/photos.tar"
        try DropboxAccounts.randomFile(file, size: 12 * 1024 * 1024 + 5)
        let enqueued = try await FerryProcess.run(
            ["enqueue", "upload", file, "--to", "s3:s3:\(setup.bucket)/photos.tar", "--traceparent", "00-\(Self.traceID)-\(Self.producerSpan)-01"],
            databaseURL: setup.db.url)
        #expect(enqueued.status == 0, "\(enqueued.stderr)")
        let worker = try TestWorker.transfers(setup.db, name: "s3-traced", ["--chunk-size", "5"], environment: Self.environment(receiver))
        try await eventually(timeout: .seconds(300), "the upload to finish") {
            try await count(setup.db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 1
        }
        worker.signal(SIGTERM)
        #expect(try await worker.waitForExit() == 0, "\(worker.log)")

        let spans = try receiver.spans()
        let attempt = try #require(spans.first { $0.name == "ferry.job.attempt" })
        #expect(attempt.traceID == Self.traceID)
        #expect(attempt.parentSpanID == Self.producerSpan)
        #expect(attempt.attributes["ferry.account"] == "s3")
        #expect(attempt.attributes["ferry.outcome"] == "succeeded")
        let parts = spans.filter { $0.name == "ferry.s3.part" }
        #expect(Set(parts.compactMap { $0.attributes["ferry.s3.part_number"] }) == ["1", "2", "3"], "one span per part")
        #expect(parts.allSatisfy { $0.parentSpanID == attempt.spanID && $0.traceID == Self.traceID })
        let partBytes: Int = parts.compactMap { $0.attributes["ferry.bytes"].flatMap(Int.init) }.reduce(0, +)
        let fileSize: Int = 12 * 1024 * 1024 + 5
        #expect(partBytes == fileSize)
        let commits = spans.filter { $0.name == "ferry.upload.commit" }
        #expect(commits.count == 1)
        #expect(commits.first?.parentSpanID == attempt.spanID)
        #expect(commits.first?.attributes["ferry.s3.parts"] == "3")
        let exported = receiver.requests.joined()
        #expect(!exported.contains(S3TransferTests.secret), "the secret access key is not exported")
        #expect(!exported.contains(DropboxAccounts.secretKey))
    }
}
