import Foundation

/// `application/x-www-form-urlencoded` fields: the dashboard's POST bodies and its addresses' query strings (a GET
/// form sends a space as `+`, a link as `%20`; both decode to a space, and `%2B` to a plus).
struct FormFields {
    /// Every value of each name, in body order (a bulk action's `job` fields repeat).
    private(set) var lists: [String: [String]] = [:]

    init(_ body: String) {
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]) else { continue }
            // A value that is not validly percent-encoded is kept as sent (with `+` as a space) rather than dropped:
            // it is only ever bound or escaped, and the operator sees what was searched.
            let value = parts.count > 1 ? Self.decode(parts[1]) ?? parts[1].replacingOccurrences(of: "+", with: " ") : ""
            lists[name, default: []].append(value)
        }
    }

    /// The last value of `name` (as a dictionary of the pairs would keep it).
    subscript(_ name: String) -> String? { lists[name]?.last }

    /// Every value of `name`.
    func all(_ name: String) -> [String] { lists[name] ?? [] }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
