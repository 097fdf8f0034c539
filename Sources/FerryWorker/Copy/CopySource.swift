import FerryStore
import NIOCore

/// One file of another provider that a `copy` job reads, pinned to the version it saw when the job's attempt
/// began: every read is of that version (an `If-Match`, a revision id), so parts written by earlier attempts and
/// this one are of the same bytes. A source that changed fails the read as `source_changed` (retryable: the next
/// attempt starts over with the new version).
public protocol CopySource: Sendable {
    var facts: CopySourceFacts { get }
    /// The bytes of `range`, in one buffer (callers read at most a part or a chunk at a time).
    func read(_ range: Range<Int64>, context: JobContext) async throws -> ByteBuffer
}
