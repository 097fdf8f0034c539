extension TransferEndpoint {
    /// Account names: letters, digits, `_`, `.`, `-`; 1–63 characters, starting with a letter or digit.
    public static func isValidAccountName(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 63, isAlphanumeric(first) else { return false }
        return name.utf8.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }
    }

    /// Flickr NSIDs (`12345678@N00`) and path aliases: letters, digits, `@ _ . -`, 1–100 characters.
    public static func isValidFlickrUserID(_ id: String) -> Bool {
        guard !id.isEmpty, id.utf8.count <= 100 else { return false }
        return id.utf8.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "@") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }
    }

    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
    }

    /// Parses an upload destination: `dropbox:ACCOUNT:/path` or `file:///absolute/dir/`.
    /// Returns the endpoint and whether it names a folder (trailing slash: keep the source's file name).
    public static func parseDestination(_ text: String, field: String = "to") throws(ValidationIssue) -> (TransferEndpoint, isFolder: Bool) {
        if text.hasPrefix("dropbox:") {
            let (account, path) = try parseDropbox(text, field: field)
            return (.dropbox(account: account, path: path), path.hasSuffix("/"))
        }
        if text.hasPrefix("file:") {
            let path = try parseFileURL(text, field: field)
            return (.directory(path: path), path.hasSuffix("/"))
        }
        throw ValidationIssue(
            field: field, problem: "destination must be dropbox:ACCOUNT:/path or file:///dir/",
            fix: "write for example --to dropbox:photos:/Photos/2026/ or --to file:///mnt/nas/photos/")
    }

    /// Parses a fetch source: an `http(s)://` URL, `dropbox:ACCOUNT:/path` or `flickr:USER_ID`.
    public static func parseFetchSource(_ text: String, field: String = "source") throws(ValidationIssue) -> TransferEndpoint {
        if text.hasPrefix("flickr:") {
            let user = String(text.dropFirst("flickr:".count))
            guard isValidFlickrUserID(user) else {
                throw ValidationIssue(
                    field: field, problem: "Flickr user id is empty or has characters other than letters, digits, @ _ . -",
                    fix: "write flickr:USER_ID, for example flickr:12345678@N00")
            }
            return .flickr(userID: user)
        }
        if text.hasPrefix("dropbox:") {
            let (account, path) = try parseDropbox(text, field: field)
            return .dropbox(account: account, path: path)
        }
        if hasPrefixIgnoringASCIICase(text, "http://") || hasPrefixIgnoringASCIICase(text, "https://") {
            return .web(url: try validateWebURL(text, field: field))
        }
        throw ValidationIssue(
            field: field, problem: "fetch source must be an http(s) URL or dropbox:ACCOUNT:/path",
            fix: "write for example https://example.com/photo.jpg or dropbox:photos:/Photos/a.jpg")
    }

    static func parseDropbox(_ text: String, field: String) throws(ValidationIssue) -> (String, String) {
        let rest = text.dropFirst("dropbox:".count)
        guard let colon = rest.firstIndex(of: ":") else {
            throw ValidationIssue(
                field: field, problem: "Dropbox location has no account", fix: "write dropbox:ACCOUNT:/path")
        }
        let account = String(rest[..<colon])
        let path = String(rest[rest.index(after: colon)...])
        guard isValidAccountName(account) else {
            throw ValidationIssue(
                field: field, problem: "account name is empty or has characters other than letters, digits, _ . -",
                fix: "use the name given to ferry account add")
        }
        try validateRemotePath(path, field: field)
        return (account, path)
    }

    /// Dropbox paths: absolute, no empty, `.` or `..` components, no control characters or backslashes.
    public static func validateRemotePath(_ path: String, field: String) throws(ValidationIssue) {
        guard path.hasPrefix("/") else {
            throw ValidationIssue(field: field, problem: "remote path must start with /", fix: "write an absolute path such as /Photos/")
        }
        guard path.utf8.count <= 4096 else {
            throw ValidationIssue(field: field, problem: "remote path is longer than 4096 bytes", fix: "shorten the path")
        }
        if let bad = path.unicodeScalars.first(where: { $0.value < 0x20 || $0.value == 0x7F || $0 == "\\" }) {
            let what = bad == "\\" ? "a backslash" : "a control character"
            throw ValidationIssue(field: field, problem: "remote path contains \(what)", fix: "use / as the separator and printable names")
        }
        let components = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (index, component) in components.enumerated() {
            let isLast = index == components.count - 1
            if component.isEmpty && !isLast {
                throw ValidationIssue(field: field, problem: "remote path has an empty component (//)", fix: "remove the doubled slash")
            }
            if component == "." || component == ".." {
                throw ValidationIssue(field: field, problem: "remote path contains \(component)", fix: "write the path without . or .. components")
            }
        }
    }

    static func parseFileURL(_ text: String, field: String) throws(ValidationIssue) -> String {
        guard text.hasPrefix("file:///") else {
            throw ValidationIssue(
                field: field, problem: "file URL must have an empty host and an absolute path",
                fix: "write file:///absolute/dir/ (three slashes)")
        }
        guard let path = percentDecode(String(text.dropFirst("file://".count))) else {
            throw ValidationIssue(field: field, problem: "file URL has an invalid %-escape", fix: "escape bytes as %XX")
        }
        try validateLocalPath(path, field: field)
        return path
    }

    static func validateWebURL(_ text: String, field: String) throws(ValidationIssue) -> String {
        guard text.utf8.count <= 8192 else {
            throw ValidationIssue(field: field, problem: "URL is longer than 8192 bytes", fix: "use a shorter URL")
        }
        // Byte-wise: every delimiter is ASCII, and no byte of a multi-byte UTF-8 sequence is below 0x80.
        let bytes = text.utf8
        if bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F }) {
            throw ValidationIssue(field: field, problem: "URL contains spaces or control characters", fix: "percent-encode them (%20)")
        }
        let afterScheme = bytes.drop(while: { $0 != UInt8(ascii: ":") }).dropFirst(3)
        let authority = afterScheme.prefix(while: { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") })
        if authority.contains(UInt8(ascii: "@")) {
            throw ValidationIssue(
                field: field, problem: "URL carries credentials (user:password@)",
                fix: "remove them from the URL; credentials belong in an account, never in a job")
        }
        let bracketed = authority.first == UInt8(ascii: "[")
        let parts = authority.split(separator: UInt8(ascii: ":"), maxSplits: 1)
        let host = bracketed ? authority : parts.first ?? authority[authority.startIndex..<authority.startIndex]
        guard !host.isEmpty else {
            throw ValidationIssue(field: field, problem: "URL has no host", fix: "write for example https://example.com/photo.jpg")
        }
        if !bracketed, let portBytes = parts.dropFirst().first {
            guard let port = Int(String(decoding: portBytes, as: UTF8.self)), (1...65535).contains(port) else {
                throw ValidationIssue(field: field, problem: "URL has an invalid port", fix: "use a port from 1 to 65535")
            }
        }
        return text
    }

    /// Local paths: absolute, no NUL bytes, at most 4096 bytes.
    public static func validateLocalPath(_ path: String, field: String) throws(ValidationIssue) {
        guard path.hasPrefix("/") else {
            throw ValidationIssue(field: field, problem: "path must be absolute", fix: "start the path with /")
        }
        guard !path.utf8.contains(0) else {
            throw ValidationIssue(field: field, problem: "path contains a NUL byte", fix: "remove it")
        }
        guard path.utf8.count <= 4096 else {
            throw ValidationIssue(field: field, problem: "path is longer than 4096 bytes", fix: "shorten the path")
        }
    }

    /// `text.lowercased().hasPrefix(prefix)` for an ASCII lowercase `prefix`, without lowercasing all of `text`.
    static func hasPrefixIgnoringASCIICase(_ text: String, _ prefix: String) -> Bool {
        var bytes = text.utf8.makeIterator()
        for expected in prefix.utf8 {
            guard let byte = bytes.next() else { return false }
            let lowered = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
            if lowered != expected { return false }
        }
        return true
    }

    static func percentDecode(_ text: String) -> String? {
        var bytes = [UInt8]()
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let hi = iterator.next(), let lo = iterator.next(),
                    let value = UInt8(String(decoding: [hi, lo], as: UTF8.self), radix: 16)
                else { return nil }
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
