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
        if let maxAge { object["max_age_seconds"] = .int(Int64(maxAge)) }
        if let minAge { object["min_age_seconds"] = .int(Int64(minAge)) }
        return .object(object)
    }

    /// A filter from its `json`; `nil` when it is not one (see ``parsed(json:)`` for why).
    public init?(json: JSONValue) {
        guard let filter = try? Self.parsed(json: json) else { return nil }
        self = filter
    }

    /// A filter from its `json`, or the first problem with it: its shape and limits (``validated(json:)``) before
    /// any pattern is compiled, then each pattern's syntax.
    public static func parsed(json: JSONValue) throws(ValidationIssue) -> FileFilter {
        guard case .object(let object) = try validated(json: json), case .array(let items) = object["rules"] ?? .array([]) else {
            throw ValidationIssue(field: "filters", problem: "not a file filter", fix: "give filters with --include, --exclude and the size and age flags")
        }
        var rules = [Rule]()
        for item in items {
            guard case .array(let parts) = item, let text = parts[1].stringValue, let origin = parts[2].stringValue else { continue }
            do throws(GlobPattern.SyntaxError) {
                rules.append(Rule(include: parts[0].stringValue == "+", pattern: try GlobPattern(text), origin: origin))
            } catch {
                throw ValidationIssue(field: "filters", problem: error.problem, fix: error.fix)
            }
        }
        var filter = FileFilter(
            rules: rules, minSize: object["min_size"]?.intValue, maxSize: object["max_size"]?.intValue,
            modifiedAfter: object["modified_after"]?.intValue.map { Date(timeIntervalSince1970: TimeInterval($0)) },
            modifiedBefore: object["modified_before"]?.intValue.map { Date(timeIntervalSince1970: TimeInterval($0)) })
        for (key, field) in [("max_age_seconds", "--max-age"), ("min_age_seconds", "--min-age")] {
            guard let value = object[key] else { continue }
            // A span a producer wrote: bounded as the flags bound it, so `now - span` is always a real date.
            guard let seconds = value.intValue, seconds >= 0, Double(seconds) <= FileFilter.longestAge else {
                throw ValidationIssue(field: field, problem: "must be a number of seconds from 0 to 10000 years", fix: "give an age such as 7d")
            }
            if key == "max_age_seconds" { filter.maxAge = TimeInterval(seconds) } else { filter.minAge = TimeInterval(seconds) }
        }
        return filter
    }

    /// Checks the shape and the limits of a filter's `json` without compiling its patterns: the rules' count and
    /// total size first, so a hostile filter costs no more than reading it.
    public static func validated(json: JSONValue) throws(ValidationIssue) -> JSONValue {
        // No rules is an empty filter (limits only, or nothing at all).
        guard case .object(let object) = json, case .array(let items) = object["rules"] ?? .array([]) else {
            throw ValidationIssue(field: "filters", problem: "not a file filter", fix: "give filters with --include, --exclude and the size and age flags")
        }
        var patternBytes = 0
        for item in items {
            guard case .array(let parts) = item, parts.count == 3, let sign = parts[0].stringValue, sign == "+" || sign == "-",
                let text = parts[1].stringValue, parts[2].stringValue != nil
            else {
                throw ValidationIssue(field: "filters", problem: "a rule is not [\"+\" or \"-\", glob, origin]", fix: "give filters with --include, --exclude and the size and age flags")
            }
            patternBytes += text.utf8.count
        }
        try checkBounds(ruleCount: items.count, patternBytes: patternBytes)
        return json
    }
}
