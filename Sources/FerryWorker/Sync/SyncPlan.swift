/// What a sync deletes: the files a complete listing of the destination holds that a complete listing of the source
/// does not (both after the same filter), compared as the destination compares paths. Folders are never deleted.
public struct SyncPlan: Sendable {
    /// Files of the destination to delete, in listing order.
    public var extras: [RemoteEntry]
    /// Files the source listed.
    public var sourceFiles: Int
    /// Files the destination listed.
    public var destinationFiles: Int
    /// The destination's file paths as it compares them.
    public var destinationPaths: Set<String>
    let ignoreCase: Bool

    /// The plan for two complete listings; `ignoreCase`: the destination's paths compare without case (Dropbox).
    public init(source: [RemoteEntry], destination: [RemoteEntry], ignoreCase: Bool) {
        let key = { (path: String) in ignoreCase ? path.lowercased() : path }
        let present = Set(source.lazy.filter { !$0.isFolder }.map { key($0.path) })
        let files = destination.filter { !$0.isFolder }
        extras = files.filter { !present.contains(key($0.path)) }
        sourceFiles = present.count
        destinationFiles = files.count
        destinationPaths = Set(files.map { key($0.path) })
        self.ignoreCase = ignoreCase
    }

    /// How many of `paths` (announced for deletion by an attempt that ended) the destination no longer holds.
    public func gone(_ paths: [String]) -> Int {
        paths.count { !destinationPaths.contains(ignoreCase ? $0.lowercased() : $0) }
    }
}
