import Foundation

/// Text from the feed (captions, usernames, permalinks) made safe to keep in job metadata, where terminals,
/// logs and the dashboard show it: no control characters other than newlines and tabs, no bidirectional
/// overrides that could disguise what a line says, and a bounded length.
enum InstagramText {
    /// A caption: its lines kept, control and bidi-override characters dropped, at most `limit` characters
    /// (Instagram's own limit is 2,200).
    static func caption(_ text: String, limit: Int = 2200) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0 == "\n" || $0 == "\t" || isShowable($0) }).prefix(limit))
    }

    /// A username: Instagram's are letters, digits, `.` and `_` (up to 30); anything else is dropped.
    static func username(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter {
            $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "." || $0 == "_")
        }).prefix(30))
    }

    /// A permalink, only when it is an `https://` URL of printable ASCII (it is shown and may be clicked).
    static func permalink(_ text: String) -> String? {
        guard text.hasPrefix("https://"), text.utf8.count <= 512, text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: ">") })
        else { return nil }
        return text
    }

    /// A timestamp as Instagram writes it (`2025-01-02T03:04:05+0000`) in ISO 8601 UTC (`2025-01-02T03:04:05Z`), or
    /// `nil` when it is not one.
    static func timestamp(_ text: String) -> String? {
        guard text.utf8.count <= 40 else { return nil }
        let parser = ISO8601DateFormatter()
        guard let date = parser.date(from: text) ?? parser.date(from: text.replacingOccurrences(of: "+0000", with: "Z")) else { return nil }
        return ISO8601DateFormatter().string(from: date)
    }

    private static func isShowable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F: false
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: false
        default: true
        }
    }
}
