import Foundation

/// `application/x-www-form-urlencoded` and query-string decoding (`+` is a space).
enum FormDecoding {
    static func decode(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = parts.first.flatMap({ unescape($0) }) else { continue }
            let value = parts.count > 1 ? unescape(parts[1]) ?? "" : ""
            result[key] = value
        }
        return result
    }

    private static func unescape(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    /// Percent-encodes a query value (for redirects back to the client).
    static func escape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
