import FerryCore
import FerryS3
import FerryStore
import FerryTestSupport
import FerryTesting
import Foundation
import Logging

/// An S3 account on the test moto server beside the fixture's OneDrive, for copies between them in process.
extension OneDriveWorkerFixture {
    static let s3KeyID = "ferry-onedrive-s3-key"
    static let s3Secret = "ferry-onedrive-s3-secret"

    /// Adds the account `name` (moto's URL, path-style) and a fresh bucket; returns the bucket.
    func addS3Account(_ name: String) async throws -> String {
        let url = try MotoServer.url.get()
        let bucket = "ferry-onedrive-\(UUID().uuidString.prefix(8).lowercased())"
        let client = S3Client(
            httpClient: .shared, configuration: S3Configuration(region: "us-east-1", endpoint: try S3Endpoint(url: url), addressingStyle: .path),
            credentials: S3Credentials(accessKeyID: Self.s3KeyID, secretAccessKey: Self.s3Secret), logger: Logger(label: "test"))
        try await client.createBucket(bucket: bucket)
        var account = NewAccount(
            name: name, provider: "s3", appKey: nil, secrets: ["access_key_id": Self.s3KeyID, "secret_access_key": Self.s3Secret],
            refreshToken: nil, maxConcurrent: 16)
        account.linkedWithoutLogin = true
        account.settings = ["region": .string("us-east-1"), "path_style": .bool(true), "endpoint_url": .string(url)]
        try await store.accounts.add(account, box: box, by: "test")
        jobs.setAccount(MemoryAccount(name: name, provider: "s3", maxConcurrent: 16))
        return bucket
    }
}
