import FerryCore
import FerryStore
import FerryWorker

/// Memory accounts as a copy destination: the source is read in pieces and stored whole.
struct MemoryCopyWriter: CopyWriter {
    var provider: String { "memory" }

    func accepts(fileDestination destination: String) -> Bool {
        destination.hasPrefix("memory:") && !destination.hasSuffix("/") && !destination.contains("/../")
    }

    func look(_ job: ClaimedJob, source: any CopySource, context: JobContext) async throws -> CopyDestinationLook {
        guard let blob = MemoryBlobs.shared.get(job.destination) else { return .absent }
        guard Int64(blob.bytes.count) == source.facts.size else { return .different(version: nil, details: ["size": .int(Int64(blob.bytes.count))]) }
        let whole = try await source.read(0..<source.facts.size, context: context)
        return blob.bytes == Array(whole.readableBytesView)
            ? .same(["size": .int(source.facts.size)]) : .different(version: nil, details: ["size": .int(source.facts.size)])
    }

    func write(_ job: ClaimedJob, source: any CopySource, seen: String?, context: JobContext) async throws -> JobResult {
        var bytes = [UInt8]()
        var offset: Int64 = 0
        while offset < source.facts.size {
            let end = min(source.facts.size, offset + 4096)
            bytes += Array(try await source.read(offset..<end, context: context).readableBytesView)
            offset = end
        }
        MemoryBlobs.shared.put(job.destination, bytes)
        return JobResult(bytes: source.facts.size, details: .object(source.facts.resultDetails))
    }
}
