import FerryCore

/// Where a listed Dropbox entry goes locally: the listed folder's local root joined with the entry's path
/// relative to that folder.
///
/// Listings are remote input. The entry must lie under the listed folder (compared on `path_lower`, as Dropbox
/// matches paths case-insensitively) and every component of its relative `path_display` must be a safe local
/// name (no `..`, `.`, empty, control or NUL characters); otherwise there is no local path and the entry is
/// skipped, never written.
enum DropboxChildPath {
    /// The local path of `entry`, or `nil` when it is not safely inside `root`.
    ///
    /// - Parameters:
    ///   - folderLower: `path_lower` of the listed folder (`""` for the Dropbox root).
    ///   - pathLower / pathDisplay: the entry's paths as listed.
    static func target(root: String, folderLower: String, pathLower: String, pathDisplay: String) -> String? {
        guard let relative = relative(folderLower: folderLower, pathLower: pathLower, pathDisplay: pathDisplay) else { return nil }
        guard let target = SafePath.join(root: root, relative: relative), SafePath.isInside(target, root: root),
            SafePath.normalize(target) == target
        else { return nil }
        return target
    }

    /// The entry's `path_display` below the listed folder (`2025/a.jpg`), or `nil` when it is not below it.
    static func relative(folderLower: String, pathLower: String, pathDisplay: String) -> String? {
        let folder = folderLower.hasSuffix("/") ? String(folderLower.dropLast()) : folderLower
        guard pathLower.hasPrefix(folder + "/") else { return nil }
        let lower = pathLower.split(separator: "/", omittingEmptySubsequences: false)
        let display = pathDisplay.split(separator: "/", omittingEmptySubsequences: false)
        let depth = folder.split(separator: "/", omittingEmptySubsequences: false).count
        // Display and lower paths name the same components; anything else is a malformed entry.
        guard lower.count == display.count, display.count > depth, display.first == "" else { return nil }
        return display.dropFirst(depth).joined(separator: "/")
    }

    /// Whether Dropbox can make a thumbnail of a file with this name.
    static func isImage(_ name: String) -> Bool {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
        return imageExtensions.contains(name[name.index(after: dot)...].lowercased())
    }

    /// The local name of a thumbnail of `path`: thumbnails are JPEG, so `a.png` becomes `a.png.jpg` (appended,
    /// not replaced, so that `a.png` and `a.heic` in one folder never share a name); `.jpg`/`.jpeg` stay as they are.
    static func thumbnailPath(_ path: String) -> String {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return path + ".jpg" }
        let ext = path[path.index(after: dot)...].lowercased()
        return ext == "jpg" || ext == "jpeg" ? path : path + ".jpg"
    }

    /// Extensions `get_thumbnail_v2` accepts.
    static let imageExtensions: Set<String> = ["jpg", "jpeg", "png", "tiff", "tif", "gif", "webp", "ppm", "bmp", "heic"]
}
