import Foundation

extension FileFilter {
    /// The filter as a job carries it (a folder or prefix fetch applies it to what it lists): rules in order as
    /// `["+" or "-", glob, origin]`, and the limits (sizes in bytes, times in seconds since 1970).
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "rules": .array(rules.map { .array([.string($0.include ? "+" : "-"), .string($0.pattern.text), .string($0.origin)]) })
        ]
        if let minSize { object["min_size"] = .int(minSize) }
        if let maxSize { object["max_size"] = .int(maxSize) }
        if let modifiedAfter { object["modified_after"] = .int(Int64(modifiedAfter.timeIntervalSince1970)) }
        if let modifiedBefore { object["modified_before"] = .int(Int64(modifiedBefore.timeIntervalSince1970)) }
        return .object(object)
    }

    /// A filter from its `json`; `nil` when it is not one (a rule that is not a valid glob included).
    public init?(json: JSONValue) {
        guard case .object(let object) = json, case .array(let items)? = object["rules"] else { return nil }
        var rules = [Rule]()
        for item in items {
            guard case .array(let parts) = item, parts.count == 3, let sign = parts[0].stringValue, sign == "+" || sign == "-",
                let text = parts[1].stringValue, let origin = parts[2].stringValue, let pattern = try? GlobPattern(text)
            else { return nil }
            rules.append(Rule(include: sign == "+", pattern: pattern, origin: origin))
        }
        self.init(
            rules: rules, minSize: object["min_size"]?.intValue, maxSize: object["max_size"]?.intValue,
            modifiedAfter: object["modified_after"]?.intValue.map { Date(timeIntervalSince1970: TimeInterval($0)) },
            modifiedBefore: object["modified_before"]?.intValue.map { Date(timeIntervalSince1970: TimeInterval($0)) })
    }
}
