import FerryCore
import FerryProviders
import FerryStore
import FerryWorker
import Logging

/// Memory accounts as a copy source: a key is a file, a key ending in / a folder listed in one page.
struct MemoryCopyReader: CopySourceReader {
    func account(of source: String) throws -> String {
        let parts = source.split(separator: ":", maxSplits: 2)
        guard parts.count == 3, parts[0] == "memory" else { throw JobFailure.permanent("bad_details", "not memory:ACCOUNT:/key") }
        return String(parts[1])
    }

    func open(_ job: ClaimedJob, from: CopySourceDetails, writing: Bool, logger: Logger) async throws -> any CopySource {
        guard let blob = MemoryBlobs.shared.get(job.source) else {
            throw JobFailure.permanent("source_not_found", "\(job.source) is not there")
        }
        return MemoryCopySource(location: job.source, facts: CopySourceFacts(size: Int64(blob.bytes.count), version: String(blob.version)))
    }

    func fanOut(_ job: ClaimedJob, target: CopyTarget, context: JobContext) async throws -> JobResult {
        let listed = MemoryBlobs.shared.list(job.source)
        let children = listed.compactMap { entry in
            target.child(
                relative: String(entry.location.dropFirst(job.source.count)), source: entry.location,
                listed: CopySourceDetails(
                    provider: "memory", account: target.from.account, size: Int64(entry.blob.bytes.count), version: String(entry.blob.version)))
        }
        let created = try await context.fanOut(await target.hinted(children, logger: context.logger), bytesDone: 0, session: .null)
        return JobResult(bytes: 0, details: .object(["listed": .int(Int64(listed.count)), "created": .int(Int64(created))]))
    }
}
