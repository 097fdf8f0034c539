/// The details of a folder fetch job that fans out one child job per subfolder: the subfolder's listing job carries
/// them again with its own path below the fetch.
protocol FolderFetchDetails: Encodable {
    /// The listed folder's path below the fetch's top (`nil` at the top).
    var prefix: String? { get set }
    var isRecursive: Bool { get }
}
