import FerryProviders
import FerryS3
import Logging

/// S3's removal capability: `DeleteObject` of a key a listing named (deleting a missing key succeeds on S3).
struct S3Remover: RemoteRemover {
    let access: S3AccountAccess

    func remove(_ entry: RemoteEntry, logger: Logger) async throws {
        let location = try S3Location(entry.reference, field: "remote", line: nil)
        let client = try await access.client(for: location.account, logger: logger)
        do {
            try await client.deleteObject(bucket: location.bucket, key: location.key)
        } catch {
            throw error.jobFailure(doing: "deleting \(location.text)")
        }
    }
}
