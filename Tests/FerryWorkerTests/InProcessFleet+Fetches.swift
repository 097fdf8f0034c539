import FerryCore
import FerryS3
import FerryStore
import FerryTesting
import FerryTestSupport
import Foundation
import Logging
import Testing

@testable import FerryWorker

/// What fetch tests do beside enqueueing and working: `ferry cancel`, `ferry projection verify`, and an S3 account
/// on moto, each through the store or the provider's own code as the command uses it.
extension InProcessFleet {
    /// `ferry cancel JOB`: the job's outcome as the command prints it.
    func cancel(_ jobID: String) async throws -> [CommandOutcome] {
        let id = try #require(UUID(uuidString: jobID), "a job id")
        return try await store.cancel(.job(id), requestedBy: "ferry cli (test)")
    }

    /// `ferry projection verify`: every difference it reports (the replay against the stored rows, the queue and
    /// batch counters, the search terms), one line each; empty when it would exit 0.
    func projectionDifferences() async throws -> [String] {
        let report = try await store.projection.verify()
        var lines = report.isClean ? [] : [report.text]
        lines += try await store.projection.queueCountDifferences().map {
            "queue counter \($0.queue)/\($0.state): counted \($0.counted), projection holds \($0.actual)"
        }
        lines += try await store.projection.batchCountDifferences().map {
            "batch counter \($0.batch)/\($0.field): counted \($0.counted), projection holds \($0.actual)"
        }
        lines += try await store.projection.searchTermDifferences().map {
            "search terms of job \($0.jobID.uuidString.lowercased()): \($0.problem.rawValue)"
        }
        return lines
    }

    /// A fresh bucket on moto (`FERRY_TEST_S3_URL`) and `ferry account add NAME --provider s3 --region us-east-1
    /// --endpoint-url URL --path-style` with the test keys, checked with the store as the command checks them; answers
    /// the bucket and a client on it.
    func addS3(_ name: String, label: String) async throws -> (bucket: String, client: S3Client) {
        let url = try MotoServer.url.get()
        let bucket = "ferry-\(label.replacingOccurrences(of: "_", with: "-"))-\(UUID().uuidString.prefix(8).lowercased())"
        let client = S3Client(
            httpClient: .shared, configuration: S3Configuration(region: "us-east-1", endpoint: try S3Endpoint(url: url), addressingStyle: .path),
            credentials: S3Credentials(accessKeyID: S3TransferTests.keyID, secretAccessKey: S3TransferTests.secret), logger: Self.quiet)
        try await client.createBucket(bucket: bucket)
        try await addS3Account(name, url: url)
        return (bucket, client)
    }

    /// Runs `body` while a worker built as `worker(_:)` builds it runs, its own log and its handlers' written to
    /// `logger` (as `ferry worker` writes its log), then stops it gracefully: for what a worker must never log.
    func withLoggedWorker(_ name: String, logger: Logger, _ body: () async throws -> Void) async throws {
        try await running([try worker(name, logger: logger)], body)
    }
}
