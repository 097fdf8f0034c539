import ArgumentParser
import FerryCore
import FerryWorker

/// Provider options on the command line: the generic `--option NAME=VALUE`, and shorthand flags for the common
/// fetch options. Every provider checks its own (see `ferry enqueue --help`).
struct ProviderOptionFlags: ParsableArguments {
    @Option(
        name: .customLong("option"),
        help: ArgumentHelp("A provider option, NAME=VALUE (repeat for several): for example mode=overwrite for Dropbox uploads.", valueName: "name=value"))
    var option: [String] = []

    @Option(help: ArgumentHelp("Expected SHA-256 of the file (URL or Dropbox file); a mismatch fails the job.", valueName: "hex"))
    var sha256: String?

    @Flag(help: "Dropbox folder: include subfolders.")
    var recursive = false

    @Option(help: ArgumentHelp("Dropbox: fetch thumbnails of this size instead of the files (w32h32 … w2048h1536).", valueName: "size"))
    var thumbnail: String?

    @Option(help: ArgumentHelp("Flickr: photo size suffix (s q t m n w z c b h k). Default: Flickr's 500 px.", valueName: "suffix"))
    var size: String?

    @Option(help: ArgumentHelp("Flickr: fetch at most this many photos, newest first.", valueName: "n"))
    var max: Int64?

    @Option(help: ArgumentHelp("Flickr: the account holding the API key. Default: the only Flickr account.", valueName: "name"))
    var account: String?

    @Option(name: .customLong("page-size"), help: ArgumentHelp("Dropbox folder: entries per list_folder page (1 … 2000). Default: 2000.", valueName: "n"))
    var pageSize: Int64?

    /// The options given, by name; an option given twice (`--max 5 --option max=6`) is refused.
    func options() throws -> [String: OptionValue] {
        var options = [String: OptionValue]()
        func add(_ name: String, _ value: OptionValue, from flag: String) throws {
            guard options[name] == nil else {
                throw CLIUsageError(message: "the option \(name) is given twice (\(flag) and --option \(name)=…); give it once")
            }
            options[name] = value
        }
        for text in option {
            let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            guard !name.isEmpty else {
                throw CLIUsageError(message: "--option takes NAME=VALUE, for example --option mode=overwrite")
            }
            guard options[name] == nil else {
                throw CLIUsageError(message: "--option \(name) is given twice; give it once")
            }
            // A bare NAME sets a true/false option to true.
            options[name] = .commandLine(parts.count > 1 ? String(parts[1]) : "")
        }
        if let sha256 { try add("sha256", .commandLine(sha256), from: "--sha256") }
        if recursive { try add("recursive", .json(.bool(true)), from: "--recursive") }
        if let thumbnail { try add("thumbnail", .commandLine(thumbnail), from: "--thumbnail") }
        if let size { try add("size", .commandLine(size), from: "--size") }
        if let max { try add("max", .json(.int(max)), from: "--max") }
        if let account { try add("account", .commandLine(account), from: "--account") }
        if let pageSize { try add("page_size", .json(.int(pageSize)), from: "--page-size") }
        return options
    }

    /// Every provider's options, for `--help`.
    static func help(_ registry: ProviderRegistry) -> String {
        var lines = [String]()
        for provider in registry.providers {
            for kind in JobKind.allCases where provider.example(for: kind) != nil {
                let options = provider.options(for: kind)
                guard !options.isEmpty else { continue }
                lines.append("  \(provider.displayName) \(kind == .upload ? "uploads" : "fetches") (\(provider.example(for: kind)!)):")
                for option in options {
                    lines.append("    \(option.name)=\(Self.valueHint(option.type))  \(option.help)")
                }
            }
        }
        return lines.joined(separator: "\n")
    }

    static func valueHint(_ type: ProviderOption.ValueType) -> String {
        switch type {
        case .string: "TEXT"
        case .boolean: "true|false"
        case .integer(let range): "\(range.lowerBound)…\(range.upperBound)"
        case .choice(let words): words.count <= 4 ? words.joined(separator: "|") : "NAME"
        }
    }
}
