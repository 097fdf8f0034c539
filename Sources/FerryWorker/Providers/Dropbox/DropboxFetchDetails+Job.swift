import FerryProviders
import FerryStore

extension DropboxFetchDetails {
    /// Reads a claimed job's details; a missing or relative `root` fails the job for good (it was enqueued wrong).
    init(job: ClaimedJob) throws {
        self = try job.details(as: Self.self)
        guard root.hasPrefix("/") else {
            throw JobFailure.permanent("bad_details", "the fetch job has no local root folder")
        }
        sha256 = sha256?.lowercased()
        // Refused at enqueue; a retry that adds one to the other (`ferry retry --option sha256=…` of a thumbnail
        // job) reaches here, and a thumbnail fetch would otherwise skip the checksum it was asked to check.
        if thumbnail != nil && sha256 != nil {
            throw JobFailure.permanent(
                "bad_details", "the fetch asks for a thumbnail and a sha256 of the file: a thumbnail has no fixed checksum; enqueue the fetch again with one of them")
        }
    }
}
