/// A validated Dropbox path: display components plus the lowercased key used for lookups,
/// since Dropbox paths are case-insensitive but case-preserving.
struct DropboxPath: Sendable, Hashable {
    /// Components as the client wrote them; empty for the root.
    let components: [String]

    var isRoot: Bool { components.isEmpty }
    /// `/a/b` as written by the client; `""` for the root.
    var display: String { components.isEmpty ? "" : "/" + components.joined(separator: "/") }
    /// The case-insensitive key (`path_lower`).
    var lower: String { Self.lowerKey(display) }
    var name: String { components.last ?? "" }
    var parent: DropboxPath { DropboxPath(components: Array(components.dropLast())) }

    func appending(_ name: String) -> DropboxPath { DropboxPath(components: components + [name]) }

    static func lowerKey(_ path: String) -> String { path.lowercased() }

    /// Why a path was refused: the pattern check is a 400, the rest are route errors.
    enum Problem: Error, Equatable {
        /// Does not match the route's path pattern (Dropbox answers 400).
        case patternMismatch
        /// `malformed_path` (409).
        case malformed
        /// `disallowed_name` (409, writes only).
        case disallowedName
    }

    /// Names Dropbox refuses to store.
    private static let disallowedNames: Set<String> = ["desktop.ini", "thumbs.db", ".ds_store", "icon\r", ".dropbox", ".dropbox.attr"]

    /// Parses a path starting with `/`; `allowRoot` accepts `""` (list_folder).
    static func parse(_ text: String, allowRoot: Bool = false, forWriting: Bool = false) throws(Problem) -> DropboxPath {
        if text.isEmpty {
            guard allowRoot else { throw .patternMismatch }
            return DropboxPath(components: [])
        }
        guard text.hasPrefix("/") else { throw .patternMismatch }
        let parts = text.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        for part in parts {
            if part.isEmpty || part == "." || part == ".." { throw .malformed }
            if part.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\r" }) || part.utf8.count > 255 {
                throw .malformed
            }
            if forWriting {
                if disallowedNames.contains(part.lowercased()) { throw .disallowedName }
                // Dropbox rejects names that end in a space or a period on write.
                if part.hasSuffix(" ") || part.hasSuffix(".") { throw .malformed }
            }
        }
        return DropboxPath(components: parts)
    }
}
