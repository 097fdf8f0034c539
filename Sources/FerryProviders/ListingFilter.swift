import FerryCore

/// The file filter of a folder or prefix fetch (`--include`, `--exclude`, `--filter-from`, sizes, ages on
/// `ferry enqueue fetch`): the listing takes only the entries it passes. Every fetch provider takes the option
/// (the registry declares it); a fetch that lists nothing refuses it.
public enum ListingFilter {
    public static let option: TypedProviderOption<String> = .string(
        "filter",
        help: "Folder and prefix fetches: which listed files to fetch, as the filter flags describe it (set by --include, --exclude, --filter-from, --min-size, --max-size, --max-age, --min-age).")

    /// The spec key the filter travels under.
    public static let specKey = "filter"
}
