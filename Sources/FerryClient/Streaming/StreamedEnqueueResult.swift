import FerryCore
import FerryStore

/// What a streamed enqueue wrote (or, in a dry run, would have written before it rolled back).
public struct StreamedEnqueueResult: Sendable {
    /// Jobs enqueued, or found by their idempotency key.
    public var jobs: Int
    /// Dry run only: jobs that would write the same destination (a real enqueue refuses them instead).
    public var collisions: [DestinationCollision]

    /// The collisions as problems, each naming the sources and the fix.
    public var collisionIssues: [ValidationIssue] { Self.issues(collisions) }

    static func issues(_ collisions: [DestinationCollision]) -> [ValidationIssue] {
        collisions.map { collision in
            let named = collision.sources.prefix(2).joined(separator: " and ")
            let more = collision.jobs > 2 ? " (and \(collision.jobs - 2) more)" : ""
            return ValidationIssue(
                field: "to", problem: "\(named)\(more) would \(collision.jobs > 2 ? "all" : "both") be written to \(collision.destination)",
                fix: "give each its own destination (a folder of its own, a full file name, or upload DIR --recursive to keep a tree's folders), or enqueue them separately")
        }
    }
}
