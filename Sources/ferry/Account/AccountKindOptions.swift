import FerryProviders
import FerryWorker

/// An account kind's own options as given on the command line (`--app-key K`, `--region R`,
/// `--refresh-token-file -`, `--path-style`), parsed against the kind's declared ``AccountInput``s: the account
/// commands take them without naming any provider, and refuse any option the kind does not declare.
struct AccountKindOptions {
    /// Values of `.value` inputs, and `"true"` for flags, by input name.
    private(set) var values = [String: String]()
    /// The files (or `-`) secret inputs are read from, by input name, in the order given.
    private(set) var secretFiles = [(name: String, path: String)]()

    /// - Parameter provider: the kind's provider, in error text.
    init(_ arguments: [String], inputs: [AccountInput], provider: String) throws {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("--") else {
                throw CLIUsageError(message: "unexpected argument '\(argument)': give the account name first, then options")
            }
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let flag = String(parts[0])
            guard let input = inputs.first(where: { $0.flag == flag }) else {
                let taken = inputs.isEmpty ? "none" : inputs.map(\.flag).joined(separator: ", ")
                throw CLIUsageError(message: "\(flag) is not an option for \(provider) accounts (they take \(taken))")
            }
            guard values[input.name] == nil, !secretFiles.contains(where: { $0.name == input.name }) else {
                throw CLIUsageError(message: "\(flag) is given twice; give it once")
            }
            if input.form == .flag {
                guard parts.count == 1 else { throw CLIUsageError(message: "\(flag) takes no value") }
                values[input.name] = "true"
                continue
            }
            let value: String
            if parts.count > 1 {
                value = String(parts[1])
            } else if let next = rest.first, !next.hasPrefix("--") {
                value = next
                rest = rest.dropFirst()
            } else {
                throw CLIUsageError(message: "\(flag) needs a value: \(input.usage)")
            }
            if input.form == .secretFile {
                secretFiles.append((input.name, value))
            } else {
                values[input.name] = value
            }
        }
    }

    /// The secrets, read from their files; at most one may come from standard input.
    func readSecrets() throws -> [String: String] {
        if secretFiles.filter({ $0.path == "-" }).count > 1 {
            throw CLIUsageError(message: "only one secret can come from standard input (-); put the others in files")
        }
        var secrets = [String: String]()
        for (name, path) in secretFiles {
            secrets[name] = try SecretInput.read(path, what: name.replacingOccurrences(of: "-", with: " "))
        }
        return secrets
    }

    /// Every kind's options, for `--help`: all of it from the kinds' declarations.
    ///
    /// - Parameter inputs: which of a kind's inputs the command takes (`add`: all; `login`: its flow's).
    static func help(_ registry: ProviderRegistry, _ inputs: (any AccountKind) -> [AccountInput]?) -> String {
        var lines = [String]()
        for provider in registry.accountProviderNames {
            guard let kind = registry.accountKind(of: provider), let declared = inputs(kind), !declared.isEmpty else { continue }
            lines.append("  \(provider):")
            // The help on a line of its own: ArgumentParser wraps discussion text without a hanging indent.
            for input in declared { lines += ["    \(input.usage)", "        \(input.help)"] }
        }
        return lines.joined(separator: "\n")
    }
}
