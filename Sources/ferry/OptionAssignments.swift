/// `--option NAME=VALUE` texts, as `ferry enqueue` (and the commands sharing its flags) and `ferry retry` take
/// them: one parser, so that both refuse the same malformed or repeated names with the same words.
enum OptionAssignments {
    /// Each `NAME=VALUE` text by name, its value made by `value(name, text)` in the order given; a bare NAME has
    /// the empty text (a true/false option set to true). An empty name or a name given twice is refused.
    static func parse<Value>(_ texts: [String], value: (String, String) throws -> Value) throws -> [String: Value] {
        var options = [String: Value]()
        for text in texts {
            let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            guard !name.isEmpty else {
                throw CLIUsageError(message: "--option takes NAME=VALUE, for example --option mode=overwrite")
            }
            guard options[name] == nil else {
                throw CLIUsageError(message: "--option \(name) is given twice; give it once")
            }
            options[name] = try value(name, parts.count > 1 ? String(parts[1]) : "")
        }
        return options
    }
}
