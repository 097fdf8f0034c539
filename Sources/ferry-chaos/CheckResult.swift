/// One line of the final table.
struct CheckResult: Sendable {
    let name: String
    let expected: String
    let found: String
    let passed: Bool
    /// What went wrong, one line per problem (the first few are printed).
    var details: [String] = []
}
