import FerryCore
import Foundation
import FerryProviders
import FerryStore

/// The file filter a folder or prefix fetch, a folder copy or a tree upload carries (`ListingFilter`), read from its
/// spec, its relative ages (a schedule's `--max-age 7d`) counted back from now.
enum ListingFilterReader {
    static func filter(of job: ClaimedJob) -> FileFilter? {
        guard job.spec.contains(ListingFilter.specKey), let spec = try? JSONValue.parse(job.spec),
            let json = spec[ListingFilter.specKey]
        else { return nil }
        return FileFilter(json: json)?.anchored(at: Date())
    }
}
