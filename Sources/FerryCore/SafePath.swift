/// Turns names that come from remote servers into local paths that stay inside a target folder.
///
/// Remote listings are not trusted: a name may be `..`, absolute, or carry a NUL byte or a slash. Everything a
/// fetch writes goes through here, so no remote name can place a file outside the folder the job was given.
public enum SafePath {
    /// The longest name most Linux file systems accept.
    public static let maxComponentBytes = 255

    /// `name` as one local path component, or `nil` when it is empty, `.` or `..`, contains `/`, a NUL byte or
    /// another control character, or is longer than 255 bytes.
    public static func component(_ name: String) -> String? {
        guard !name.isEmpty, name != ".", name != "..", name.utf8.count <= maxComponentBytes else { return nil }
        guard !name.unicodeScalars.contains(where: { $0 == "/" || $0.value < 0x20 || $0.value == 0x7F }) else { return nil }
        return name
    }

    /// `root` (a folder) joined with a relative remote path (`a/b/c.jpg`); `nil` when any component is unsafe.
    /// A leading `/` in `relative` is refused rather than trusted.
    public static func join(root: String, relative: String) -> String? {
        guard !relative.hasPrefix("/") else { return nil }
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard !parts.isEmpty else { return nil }
        var path = root.hasSuffix("/") ? root : root + "/"
        for (index, part) in parts.enumerated() {
            guard let safe = component(part) else { return nil }
            path += safe
            if index < parts.count - 1 { path += "/" }
        }
        return path
    }

    /// True when `path` (absolute) lies inside `root` (absolute) after resolving `.` and `..` lexically.
    public static func isInside(_ path: String, root: String) -> Bool {
        guard let resolved = normalize(path), let base = normalize(root) else { return false }
        if base == "/" { return resolved != "/" }
        return resolved.hasPrefix(base + "/") && resolved.count > base.count + 1
    }

    /// An absolute path with `.`, `..` and doubled slashes resolved; `nil` for a relative path or a NUL byte.
    public static func normalize(_ path: String) -> String? {
        guard path.hasPrefix("/"), !path.utf8.contains(0) else { return nil }
        var stack = [Substring]()
        for part in path.split(separator: "/") {
            if part == "." { continue }
            if part == ".." {
                if !stack.isEmpty { stack.removeLast() }
                continue
            }
            stack.append(part)
        }
        return "/" + stack.joined(separator: "/")
    }

    /// True when a component of `path` is `..`: refused in every local path a job names, so that no lexical
    /// check of a path's prefix can be walked out of.
    public static func hasDotDot(_ path: String) -> Bool {
        path.split(separator: "/", omittingEmptySubsequences: true).contains("..")
    }

    /// The folder part of an absolute path (`/a/b/c` → `/a/b/`).
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "/" }
        return String(path[...slash])
    }

    /// The last component of a URL's path, percent-decoded, if it makes a safe file name.
    public static func fileName(fromURL url: String) -> String? {
        // Byte-wise (the delimiters are ASCII): Character iteration costs grapheme breaking on every byte.
        let afterScheme = url.utf8.drop(while: { $0 != UInt8(ascii: ":") }).dropFirst(3)
        let pathAndQuery = afterScheme.drop(while: { $0 != UInt8(ascii: "/") })
        let path = pathAndQuery.prefix(while: { $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") })
        let last = path.reversed().prefix(while: { $0 != UInt8(ascii: "/") })
        guard !last.isEmpty else { return nil }
        guard let decoded = EndpointSyntax.percentDecode(String(decoding: last.reversed(), as: UTF8.self)) else { return nil }
        return component(decoded)
    }
}
