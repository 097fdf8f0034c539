/// The limits on what a filter may ask of a worker. A producer writes filters (the `filter` option of a fetch or
/// copy, a schedule's template), and every listed file is matched against every rule, so the whole filter is
/// bounded, not just each pattern (``GlobPattern/maxLength``, ``GlobPattern/maxAlternatives``). The SQL check of
/// enqueued filters (`ferry.filter_problem`) applies the same numbers.
extension FileFilter {
    /// The most rules one filter may hold.
    public static let maxRules = 1000
    /// The most bytes all of a filter's patterns may hold together.
    public static let maxPatternBytes = 65_536
    /// The most bytes a filter may take as JSON (patterns, origins and limits).
    public static let maxJSONBytes = 262_144

    /// Refuses a filter over the limits, naming the limit and the fix.
    public static func checkBounds(ruleCount: Int, patternBytes: Int) throws(ValidationIssue) {
        guard ruleCount <= maxRules else {
            throw ValidationIssue(
                field: "filters", problem: "\(ruleCount) rules, more than \(maxRules)",
                fix: "merge rules with alternatives ({jpg,png}) or directory patterns (dir/)")
        }
        guard patternBytes <= maxPatternBytes else {
            throw ValidationIssue(
                field: "filters", problem: "the rules' patterns take \(patternBytes) bytes, more than \(maxPatternBytes)",
                fix: "use fewer or shorter patterns")
        }
    }

    /// ``checkBounds(ruleCount:patternBytes:)`` for this filter's rules.
    public func checkBounds() throws(ValidationIssue) {
        try Self.checkBounds(ruleCount: rules.count, patternBytes: rules.reduce(0) { $0 + $1.pattern.text.utf8.count })
    }
}
