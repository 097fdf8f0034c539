import Foundation

/// Reads secrets from files or standard input, so they never appear in process arguments (visible in `ps`).
enum SecretInput {
    /// The trimmed content of `path`, or of standard input for `-`.
    static func read(_ path: String, what: String) throws -> String {
        let text: String?
        if path == "-" {
            text = String(data: FileHandle.standardInput.readDataToEndOfFile(), encoding: .utf8)
        } else {
            text = try? String(contentsOfFile: path, encoding: .utf8)
        }
        guard let text else {
            throw CLIUsageError(message: "cannot read the \(what) from \(path == "-" ? "standard input" : path): check the path and permissions")
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else {
            throw CLIUsageError(message: "the \(what) in \(path == "-" ? "standard input" : path) is empty")
        }
        guard !trimmed.contains(where: { $0.isWhitespace }) else {
            throw CLIUsageError(message: "the \(what) in \(path == "-" ? "standard input" : path) has whitespace inside: give just the value")
        }
        return trimmed
    }

    /// One line from standard input (an authorization code pasted by a person).
    static func readLine(what: String) throws -> String {
        guard let line = Swift.readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces), !line.isEmpty else {
            throw CLIUsageError(message: "no \(what) was entered")
        }
        return line
    }
}
