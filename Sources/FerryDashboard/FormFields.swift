import Foundation

/// `application/x-www-form-urlencoded` fields (the dashboard's POST bodies).
struct FormFields {
    /// Every value of each name, in body order (a bulk action's `job` fields repeat).
    private(set) var lists: [String: [String]] = [:]

    init(_ body: String) {
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]) else { continue }
            lists[name, default: []].append(parts.count > 1 ? Self.decode(parts[1]) ?? "" : "")
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
