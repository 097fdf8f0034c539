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
        // A key names one request: the same key gives the same source, so repeats are the same arguments.
        let name = key.map { "keyed-\($0)" } ?? UUID().uuidString
        let source = account.map { "dropbox:\($0):/photos/\(name).jpg" } ?? "https://example.com/\(name).jpg"
        return JobSpec(
            jobID: UUIDv7.make(), kind: .fetch, source: source, destination: "/srv/in/", account: account,
            queue: queue, batch: batch, priority: priority, maxAttempts: maxAttempts, runAt: runAt,
            idempotencyKey: key, metadata: nil, bytesTotal: 1000, details: [:])
    }
}
