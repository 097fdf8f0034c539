import FerryCore
import FerryStore
import FerryTestSupport
import Foundation

/// Builders for store tests.
enum StoreFixtures {
    static func fetchSpec(
        batch: String? = nil, queue: String = "default", key: String? = nil, priority: Int64 = 0,
        maxAttempts: Int64 = 5, account: String? = nil, runAt: Date? = nil
    ) -> JobSpec {
        let source = account.map { "dropbox:\($0):/photos/\(UUID().uuidString).jpg" } ?? "https://example.com/\(UUID().uuidString).jpg"
        return JobSpec(
            jobID: UUIDv7.make(), kind: .fetch, source: source, destination: "/srv/in/", account: account,
            queue: queue, batch: batch, priority: priority, maxAttempts: maxAttempts, runAt: runAt,
            idempotencyKey: key, metadata: nil, bytesTotal: 1000, details: [:])
    }
}
