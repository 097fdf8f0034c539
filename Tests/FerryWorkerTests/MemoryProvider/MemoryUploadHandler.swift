import FerryStore
import FerryWorker

/// Keeps nothing: the test provider shows the plumbing, not a transfer.
struct MemoryUploadHandler: JobHandler {
    var name: String { "memory_upload" }

    func run(_ job: ClaimedJob, context: JobContext) async throws -> JobResult {
        let details = try job.details(as: MemoryUploadDetails.self)
        return JobResult(bytes: 0, details: .object(["copies": .int(details.copies)]))
    }
}
