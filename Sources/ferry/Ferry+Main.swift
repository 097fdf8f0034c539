import ArgumentParser
import FerryCore

#if canImport(Glibc)
    import Glibc
#endif

extension Ferry {
    /// Runs the command line as ArgumentParser would, with one voice for its errors: `error:` in lower case like
    /// every message of Ferry's own, and for a mistyped command the closest one ("did you mean 'status'?").
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            // The async parse: it also answers the completion scripts' calls for values read from the database.
            var command = try await asyncParseAsRoot(arguments)
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            guard code != .success else {
                // --help (usage before the long text), --version: on standard output.
                print(HelpLayout.usageFirst(fullMessage(for: error)))
                Glibc.exit(code.rawValue)
            }
            var message = fullMessage(for: error)
            if message.hasPrefix("Error: ") { message = "error: " + message.dropFirst("Error: ".count) }
            if let suggestion = suggestion(for: arguments) { message += "\n" + suggestion }
            if !message.isEmpty { printError(message) }
            Glibc.exit(code.rawValue)
        }
    }

    /// "did you mean …" for a first argument that is not a subcommand but is close to one.
    static func suggestion(for arguments: [String]) -> String? {
        guard let first = arguments.first, !first.hasPrefix("-") else { return nil }
        let names = configuration.subcommands.map { $0._commandName } + ["help"]
        guard !names.contains(first) else { return nil }
        let scored = names.map { ($0, editDistance(first, $0)) }.filter { $0.1 <= max(2, first.count / 3) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        return "did you mean '\(best.0)'? (ferry --help lists the commands)"
    }

    /// Levenshtein distance: small names only.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(1, a.count) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in 1...max(1, b.count) where !b.isEmpty {
                let saved = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = saved
            }
        }
        return a.isEmpty ? b.count : row[b.count]
    }
}
