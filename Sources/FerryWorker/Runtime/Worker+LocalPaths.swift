import FerryCore
import FerryProviders
import FerryStore

extension Worker {
    /// The claim-time check: every local path the job names (an upload's source and a `file:` destination, a
    /// fetch's target) must lie in the worker's local roots and carry no `..`. Permanent: a path does not move
    /// into the roots by retrying. The handlers check again against what they actually open.
    static func checkLocalPaths(of job: ClaimedJob, roots: LocalRoots) throws(JobFailure) {
        switch job.kind {
        case .upload:
            try roots.check(job.source, role: "source")
            if EndpointSyntax.scheme(of: job.destination) == nil && job.destination.hasPrefix("/") {
                // A plain folder, as SQL enqueues name it before the worker settles it to file://.
                try roots.check(job.destination, role: "destination")
            } else if EndpointSyntax.scheme(of: job.destination) == "file" {
                guard let path = try? FileURL.path(of: job.destination, field: "to", line: nil) else {
                    throw JobFailure.permanent("bad_destination", "the destination is not a usable file:/// URL")
                }
                try roots.check(path, role: "destination")
            }
        case .fetch:
            try roots.check(job.destination, role: "destination")
        case .copy:
            // Both sides are remote: a copy names no local path, and writes none.
            if job.source.hasPrefix("/") || job.destination.hasPrefix("/") || EndpointSyntax.scheme(of: job.destination) == "file" {
                throw JobFailure.permanent("bad_destination", "a copy goes between providers; it reads and writes no local path")
            }
        }
    }
}
