import FerryCore

/// The file filter of a job that lists: a folder or prefix fetch, a folder copy, a tree upload walked by a worker
/// (`--include`, `--exclude`, `--filter-from`, sizes, ages; a schedule keeps them for each tick): the listing takes
/// only the entries it passes. The registry declares the option for every provider; a job of one file refuses it.
public enum ListingFilter {
    public static let option: TypedProviderOption<String> = .string(
        "filter",
        help: "Folder and prefix fetches, folder copies and tree uploads (tree=true): which listed files to take, as the filter flags describe it (set by --include, --exclude, --filter-from, --min-size, --max-size, --max-age, --min-age).")

    /// The spec key the filter travels under.
    public static let specKey = "filter"
}
