import FerryCore
import Foundation

extension JobSpec {
    /// A fetch job for tests: a remote source, a local destination, due now unless `runAt` says otherwise.
    public static func test(
        queue: String = "default", batch: String? = nil, priority: Int64 = 0, maxAttempts: Int64 = 5,
        account: String? = nil, runAt: Date? = nil, key: String? = nil, bytesTotal: Int64? = 1000
    ) -> JobSpec {
        let name = key.map { "keyed-\($0)" } ?? UUID().uuidString
        let source = account.map { "dropbox:\($0):/photos/\(name).jpg" } ?? "https://example.com/\(name).jpg"
        return JobSpec(
            jobID: UUIDv7.make(), kind: .fetch, source: source, destination: "/srv/in/", account: account, queue: queue,
            batch: batch, priority: priority, maxAttempts: maxAttempts, runAt: runAt, idempotencyKey: key,
            metadata: nil, bytesTotal: bytesTotal, details: [:])
    }
}
