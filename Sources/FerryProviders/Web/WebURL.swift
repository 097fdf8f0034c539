import FerryCore

/// Checks of a URL to fetch, made at enqueue so a bad one never reaches a worker.
public enum WebURL {
    /// The URL itself when it has a host, a valid port, no credentials, no spaces or control characters, and
    /// at most 8192 bytes.
    public static func validate(_ text: String, field: String, line: Int?) throws(ValidationIssue) -> String {
        func issue(_ problem: String, _ fix: String) -> ValidationIssue {
            ValidationIssue(line: line, field: field, problem: problem, fix: fix)
        }
        guard EndpointSyntax.hasPrefixIgnoringASCIICase(text, "http://") || EndpointSyntax.hasPrefixIgnoringASCIICase(text, "https://") else {
            throw issue("not an http(s) URL", "write for example https://example.com/photo.jpg")
        }
        guard text.utf8.count <= 8192 else {
            throw issue("URL is longer than 8192 bytes", "use a shorter URL")
        }
        // Byte-wise: every delimiter is ASCII, and no byte of a multi-byte UTF-8 sequence is below 0x80.
        let bytes = text.utf8
        if bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F }) {
            throw issue("URL contains spaces or control characters", "percent-encode them (%20)")
        }
        let afterScheme = bytes.drop(while: { $0 != UInt8(ascii: ":") }).dropFirst(3)
        let authority = afterScheme.prefix(while: { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") })
        if authority.contains(UInt8(ascii: "@")) {
            throw issue("URL carries credentials (user:password@)", "remove them from the URL; credentials belong in an account, never in a job")
        }
        let bracketed = authority.first == UInt8(ascii: "[")
        let parts = authority.split(separator: UInt8(ascii: ":"), maxSplits: 1)
        let host = bracketed ? authority : parts.first ?? authority[authority.startIndex..<authority.startIndex]
        guard !host.isEmpty else {
            throw issue("URL has no host", "write for example https://example.com/photo.jpg")
        }
        if !bracketed, let portBytes = parts.dropFirst().first {
            guard let port = Int(String(decoding: portBytes, as: UTF8.self)), (1...65535).contains(port) else {
                throw issue("URL has an invalid port", "use a port from 1 to 65535")
            }
        }
        return text
    }
}
