import FerryCore

/// What a listing covers and what it may cost. Pagination tokens come from the provider; these bounds are ours, so a
/// hostile or huge remote tree ends a listing with ``RemoteListingError`` instead of running without end.
public struct RemoteListOptions: Sendable {
    /// Every folder below too (`false`: the folder's own entries, its subfolders as folder entries).
    public var recursive: Bool
    /// Entries yielded at most (files and folders); one more ends the listing with `too_many_entries`.
    public var maxEntries: Int
    /// Folder levels at most below the listed folder; an entry deeper ends the listing with `too_deep`.
    public var maxDepth: Int
    /// Folders this filter excludes whole (``FileFilter/descends(into:)``) need not be read: a lister that walks
    /// folder by folder skips them. Files are judged by ``RemoteListing``, not by the lister.
    public var filter: FileFilter
    /// A folder that cannot be read ends the listing (`not_readable`) instead of being skipped: a sync must not take
    /// the files it could not see for files the source no longer has.
    public var strict = false

    public init(recursive: Bool, maxEntries: Int = 10_000_000, maxDepth: Int = 256, filter: FileFilter = FileFilter()) {
        self.recursive = recursive
        self.maxEntries = maxEntries
        self.maxDepth = maxDepth
        self.filter = filter
    }

    /// Whether a walk reads the folder at `path` (below the listed folder): recursive, within depth, not filtered out.
    public func descends(into path: String, depth: Int) -> Bool {
        recursive && depth < maxDepth && filter.descends(into: path)
    }
}
