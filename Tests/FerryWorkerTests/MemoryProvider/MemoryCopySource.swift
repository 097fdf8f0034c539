import FerryStore
import FerryWorker
import NIOCore

/// A memory blob a copy reads, pinned to the version it was opened at.
struct MemoryCopySource: CopySource {
    let location: String
    let facts: CopySourceFacts

    func read(_ range: Range<Int64>, context: JobContext) async throws -> ByteBuffer {
        guard let blob = MemoryBlobs.shared.get(location), String(blob.version) == facts.version else {
            throw JobFailure.retryable("source_changed", "\(location) changed during the copy")
        }
        return ByteBuffer(bytes: blob.bytes[Int(range.lowerBound)..<Int(range.upperBound)])
    }
}
