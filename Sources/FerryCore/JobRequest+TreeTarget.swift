extension JobRequest {
    /// The local folder an upload destination names: a plain path (resolved against `base`) or a `file:///…` URL
    /// (decoded); nil for a provider's destination (`dropbox:…`, `s3:…`), which no local tree can contain.
    public static func localFolder(of destination: String, base: String) -> String? {
        switch EndpointSyntax.scheme(of: destination) {
        case nil: return absolute(destination, base: base)
        case "file":
            guard destination.utf8.dropFirst(5).starts(with: "///".utf8) else { return nil }
            return EndpointSyntax.percentDecode(String(destination.dropFirst("file://".count)))
        default: return nil
        }
    }

    /// The refusal of a tree upload whose local destination is the tree itself or inside it: every run would
    /// upload the copies of the run before, a level deeper each time (copies refuse the same in ProviderRegistry.resolveCopy).
    /// Paths compare after `.` and `..` are resolved; nil when the destination is elsewhere.
    public static func treeIntoItself(root: String, destination: String, base: String, line: Int?) -> ValidationIssue? {
        guard let folder = localFolder(of: destination, base: base), let target = SafePath.normalize(folder),
            let tree = SafePath.normalize(root)
        else { return nil }
        guard target == tree || SafePath.isInside(target, root: tree) else { return nil }
        return ValidationIssue(
            line: line, field: "to", problem: "the destination \(target) is inside the folder being uploaded (\(tree))",
            fix: "upload to a folder outside \(tree): each run would upload the copies of the last one again, a level deeper")
    }
}
