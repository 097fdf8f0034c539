/// Syntax shared by every provider's endpoints: account names, local paths, URI schemes and percent-encoding.
public enum EndpointSyntax {
    /// Account names: letters, digits, `_`, `.`, `-`; 1–63 characters, starting with a letter or digit.
    public static func isValidAccountName(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 63, isAlphanumeric(first) else { return false }
        return name.utf8.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }
    }

    /// The refusal of a bad account name in `field`.
    public static func accountNameIssue(field: String, line: Int?) -> ValidationIssue {
        ValidationIssue(
            line: line, field: field, problem: "account name is empty or has characters other than letters, digits, _ . -",
            fix: "use the name given to ferry account add")
    }

    public static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
    }

    /// The URI scheme of `text`, lowercased (`dropbox` in `dropbox:a:/x`, `https` in `HTTPS://…`), or `nil` for a
    /// plain path. A scheme is a letter followed by letters, digits, `+ - .`, then `:`.
    public static func scheme(of text: String) -> String? {
        var scheme = [UInt8]()
        for byte in text.utf8 {
            if byte == UInt8(ascii: ":") { break }
            let isLetter = (65...90).contains(byte) || (97...122).contains(byte)
            guard isLetter || (!scheme.isEmpty && (isAlphanumeric(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "."))) else {
                return nil
            }
            scheme.append((65...90).contains(byte) ? byte + 32 : byte)
            if scheme.count > 32 { return nil }
        }
        guard !scheme.isEmpty, scheme.count < text.utf8.count else { return nil }
        return String(decoding: scheme, as: UTF8.self)
    }

    /// Local paths: absolute, no `..` component, no NUL bytes, at most 4096 bytes.
    public static func validateLocalPath(_ path: String, field: String, line: Int? = nil) throws(ValidationIssue) {
        guard path.hasPrefix("/") else {
            throw ValidationIssue(line: line, field: field, problem: "path must be absolute", fix: "start the path with /")
        }
        guard !path.utf8.contains(0) else {
            throw ValidationIssue(line: line, field: field, problem: "path contains a NUL byte", fix: "remove it")
        }
        guard path.utf8.count <= 4096 else {
            throw ValidationIssue(line: line, field: field, problem: "path is longer than 4096 bytes", fix: "shorten the path")
        }
        guard !SafePath.hasDotDot(path) else {
            throw ValidationIssue(
                line: line, field: field, problem: "path contains '..' (\(path))",
                fix: "write the path without '..'; workers refuse it in every local path")
        }
    }

    /// True when a URL carries credentials (`scheme://user:password@host`): they would be stored and shown in
    /// the clear, so every URL Ferry stores is refused with them.
    public static func hasUserInfo(_ url: String) -> Bool {
        guard let schemeEnd = url.range(of: "://") else { return false }
        let authority = url[schemeEnd.upperBound...].prefix(while: { $0 != "/" && $0 != "?" && $0 != "#" })
        return authority.contains("@")
    }

    /// `text.lowercased().hasPrefix(prefix)` for an ASCII lowercase `prefix`, without lowercasing all of `text`.
    public static func hasPrefixIgnoringASCIICase(_ text: String, _ prefix: String) -> Bool {
        var bytes = text.utf8.makeIterator()
        for expected in prefix.utf8 {
            guard let byte = bytes.next() else { return false }
            let lowered = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
            if lowered != expected { return false }
        }
        return true
    }

    /// Decodes `%XX` escapes; `nil` for a bad escape or bytes that are not UTF-8.
    public static func percentDecode(_ text: String) -> String? {
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

    /// Percent-encodes every byte of a path but unreserved characters and `/`.
    public static func percentEncodePath(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "_"),
                UInt8(ascii: "."), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }

    /// A SHA-256 given as 64 hex digits, lowercased, or the refusal naming `field`.
    public static func sha256Hex(_ text: String, field: String, line: Int?) throws(ValidationIssue) -> String {
        let lower = text.lowercased()
        guard lower.utf8.count == 64, lower.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            throw ValidationIssue(line: line, field: field, problem: "must be 64 hexadecimal digits", fix: "give the file's SHA-256 as printed by sha256sum")
        }
        return lower
    }
}
