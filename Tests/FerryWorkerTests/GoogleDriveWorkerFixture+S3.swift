import FerryS3
import FerryTestSupport
import FerryTesting
import Foundation
import Logging

/// An S3 account on the test moto server beside the fixture's others, for S3 handlers run in process.
extension GoogleDriveWorkerFixture {
    /// Adds the account `name` (moto's URL, the test keys, path-style) with `ferry account add`, creates a fresh
    /// bucket, and returns it with a client for checking it.
    func addS3Account(_ name: String) async throws -> (bucket: String, client: S3Client) {
        let url = try MotoServer.url.get()
        let bucket = "ferry-fence-\(UUID().uuidString.prefix(8).lowercased())"
        let client = S3Client(
            httpClient: .shared, configuration: S3Configuration(region: "us-east-1", endpoint: try S3Endpoint(url: url), addressingStyle: .path),
            credentials: S3Credentials(accessKeyID: S3TransferTests.keyID, secretAccessKey: S3TransferTests.secret), logger: Logger(label: "test"))
        try await client.createBucket(bucket: bucket)
        try S3TransferTests.keyID.write(toFile: folder + "/key-id", atomically: true, encoding: .utf8)
        let added = try await FerryProcess.run(
            ["account", "add", name, "--provider", "s3", "--region", "us-east-1", "--endpoint-url", url, "--path-style",
             "--access-key-id-file", folder + "/key-id", "--secret-access-key-file", "-"],
            databaseURL: database.url, stdin: S3TransferTests.secret + "\n", environment: DropboxAccounts.environment)
        guard added.status == 0 else { throw TestSupportError("ferry account add failed: \(added.stderr)") }
        jobs.setAccount(MemoryAccount(name: name, provider: "s3", maxConcurrent: 16))
        return (bucket, client)
    }
}
