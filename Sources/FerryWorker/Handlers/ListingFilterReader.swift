import FerryCore
import FerryProviders
import FerryStore

/// The file filter a folder or prefix fetch carries (`ListingFilter`), read from its spec.
enum ListingFilterReader {
    static func filter(of job: ClaimedJob) -> FileFilter? {
        guard job.spec.contains(ListingFilter.specKey), let spec = try? JSONValue.parse(job.spec),
            let json = spec[ListingFilter.specKey]
        else { return nil }
        return FileFilter(json: json)
    }
}
