import AsyncHTTPClient
import FerryCore
import FerryProviders
import FerryS3
import FerryTestSupport
import Foundation
import Logging
import Testing

@testable import FerryWorker

extension InProcessFleet {
    /// A fresh bucket on moto (`FERRY_TEST_S3_URL`, run outside the test as PostgreSQL is), a client for checking it,
    /// a temporary folder, and account `s3` on the bucket's store: `S3TransferTests.setUp` for a fleet in process.
    func s3(_ label: String) async throws -> S3TransferTests.Setup {
        let url = try MotoServer.url.get()
        let bucket = "ferry-\(label.replacingOccurrences(of: "_", with: "-"))-\(UUID().uuidString.prefix(8).lowercased())"
        let client = S3Client(
            httpClient: .shared, configuration: S3Configuration(region: "us-east-1", endpoint: try S3Endpoint(url: url), addressingStyle: .path),
            credentials: S3Credentials(accessKeyID: S3TransferTests.keyID, secretAccessKey: S3TransferTests.secret), logger: Self.quiet)
        try await client.createBucket(bucket: bucket)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-s3-\(label)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try await addS3("s3", url: url)
        return S3TransferTests.Setup(db: db, url: url, bucket: bucket, client: client, dir: dir)
    }

    /// `ferry account add NAME --provider s3 --region us-east-1 --endpoint-url URL --path-style` with the test keys
    /// (files, as the command reads them), checked with the store as the command checks them.
    func addS3(_ name: String, url: String) async throws {
        let kind = try #require(ProviderRegistry.standard.accountKind(of: "s3"), "S3 accounts")
        let inputs = AccountInputs(
            name: name, provider: "s3", maxConcurrent: nil, values: ["region": "us-east-1", "endpoint-url": url, "path-style": "true"],
            secrets: ["access-key-id": S3TransferTests.keyID, "secret-access-key": S3TransferTests.secret], verify: true)
        let (account, note) = try await kind.prepare(inputs, httpClient: http, logger: Self.quiet)
        #expect(note.contains("keys verified"), "\(note)")
        try await store.accounts.add(account, box: box, by: "test")
    }
}
