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
        let (bucket, client) = try await addS3("s3", label: label)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-s3-\(label)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return S3TransferTests.Setup(db: db, url: try MotoServer.url.get(), bucket: bucket, client: client, dir: dir)
    }

    /// Another account on the store at `url` (`ferry account add NAME --provider s3 --region us-east-1 --endpoint-url
    /// URL --path-style` with the test keys), checked with the store as the command checks them ("keys verified").
    func addS3Account(_ name: String, url: String) async throws {
        let kind = try #require(ProviderRegistry.standard.accountKind(of: "s3"), "S3 accounts")
        let inputs = AccountInputs(
            name: name, provider: "s3", maxConcurrent: nil, values: ["region": "us-east-1", "endpoint-url": url, "path-style": "true"],
            secrets: ["access-key-id": S3TransferTests.keyID, "secret-access-key": S3TransferTests.secret], verify: true)
        let (account, note) = try await kind.prepare(inputs, httpClient: http, logger: Self.quiet)
        #expect(note.contains("keys verified"), "\(note)")
        try await store.accounts.add(account, box: box, by: "test")
    }
}
