import FerryCore

/// `file:///absolute/path` URLs: an empty host, an absolute path, `%XX` escapes.
public enum FileURL {
    /// The decoded absolute path of a `file:///…` URL, or the refusal naming `field`.
    public static func path(of text: String, field: String, line: Int?) throws(ValidationIssue) -> String {
        guard text.hasPrefix("file:///") else {
            throw ValidationIssue(
                line: line, field: field, problem: "file URL must have an empty host and an absolute path",
                fix: "write file:///absolute/dir/ (three slashes)")
        }
        guard let path = EndpointSyntax.percentDecode(String(text.dropFirst("file://".count))) else {
            throw ValidationIssue(line: line, field: field, problem: "file URL has an invalid %-escape", fix: "escape bytes as %XX")
        }
        try EndpointSyntax.validateLocalPath(path, field: field, line: line)
        return path
    }

    /// The canonical URL of an absolute path (every byte but unreserved ones and `/` percent-encoded).
    public static func text(of path: String) -> String {
        "file://" + EndpointSyntax.percentEncodePath(path)
    }
}
