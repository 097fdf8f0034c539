import FerryProviders
import FerryStore

extension OneDriveFetchDetails {
    /// Reads a claimed job's details; a missing or relative `root` fails the job for good.
    init(job: ClaimedJob) throws {
        self = try job.details(as: Self.self)
        guard root.hasPrefix("/") else {
            throw JobFailure.permanent("bad_details", "the fetch job has no local root folder")
        }
        sha256 = sha256?.lowercased()
    }
}
