import Foundation

/// The order of a command-line tool's `--help`: what it does (the abstract), how to call it (USAGE), its arguments and
/// options, and only then the longer text (details, examples, exit codes). ArgumentParser prints the discussion
/// between the abstract and USAGE, so a command with much to say (enqueue) buried its usage under pages of prose.
public enum HelpLayout {
    /// `help` with its discussion moved after the options; any other text (a version, a completion script) as it is.
    public static func usageFirst(_ help: String) -> String {
        guard help.hasPrefix("OVERVIEW: ") else { return help }
        var lines = help.components(separatedBy: "\n")
        guard let usage = lines.firstIndex(where: { $0.hasPrefix("USAGE: ") }),
            let abstractEnd = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }),
            abstractEnd < usage
        else { return help }
        // Lines abstractEnd..<usage: a blank line, the discussion, a blank line before USAGE.
        let discussion = trimmed(Array(lines[abstractEnd..<usage]))
        guard !discussion.isEmpty else { return help }
        lines.removeSubrange(abstractEnd..<usage)
        lines.insert("", at: abstractEnd)
        let rest = trimmed(lines)
        return (rest + [""] + discussion).joined(separator: "\n")
    }

    /// `lines` without the blank lines at either end.
    private static func trimmed(_ lines: [String]) -> [String] {
        let blank: (String) -> Bool = { $0.trimmingCharacters(in: .whitespaces).isEmpty }
        guard let first = lines.firstIndex(where: { !blank($0) }), let last = lines.lastIndex(where: { !blank($0) }) else { return [] }
        return Array(lines[first...last])
    }
}
