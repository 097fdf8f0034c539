import ArgumentParser
import FerryCore
import FerryProviders

/// Provider options on the command line: the generic `--option NAME=VALUE`, and shorthand flags for the common
/// fetch options. Every provider checks its own (see `ferry enqueue --help`).
struct ProviderOptionFlags: ParsableArguments {
    @Option(
        name: .customLong("option"),
        help: ArgumentHelp("A provider option, NAME=VALUE (repeat for several): for example mode=overwrite for Dropbox uploads.", valueName: "name=value"))
    var option: [String] = []

    @Option(help: Self.help("sha256", valueName: "hex"))
    var sha256: String?

    @Flag(help: ArgumentHelp(
        "Uploads: each DIR's files, keeping their paths below DIR under DEST/ (see Trees, filters and dry run). Copies: the source is a folder (as a trailing / says). "
            + ProviderRegistry.standard.help(forOption: "recursive")))
    var recursive = false

    @Option(help: Self.help("thumbnail", valueName: "size"), completion: CompletionValues.providerChoices("thumbnail"))
    var thumbnail: String?

    @Option(help: Self.help("size", valueName: "suffix"), completion: CompletionValues.providerChoices("size"))
    var size: String?

    @Option(help: Self.help("max", valueName: "n"))
    var max: Int64?

    @Option(help: Self.help("account", valueName: "name"), completion: CompletionValues.account)
    var account: String?

    @Option(name: .customLong("page-size"), help: Self.help("page_size", valueName: "n"))
    var pageSize: Int64?

    @Flag(
        name: .customLong("if-changed"), inversion: .prefixedNo,
        help: ArgumentHelp(
            ProviderRegistry.standard.help(forOption: "if_changed")
                + " The default for upload DIR --recursive and for copies (a tree copied again moves only what changed, and a changed file replaces the one there as a new version of it); --no-if-changed sends everything."))
    var ifChanged: Bool?

    @Flag(help: "Fetches, uploads and copies: a file already at the destination is left as it is, whatever its content, and nothing is transferred (--option existing=ignore).")
    var ignoreExisting = false

    @Flag(help: "Fetches, uploads and copies: never replace a file already at the destination: a different one fails the job (destination_exists), the same one is kept (--option existing=immutable).")
    var immutable = false

    /// The options given, by name; an option given twice (`--max 5 --option max=6`) is refused. For uploads
    /// `--recursive` walks folders (see `ferry enqueue`) and is no provider option.
    func options(for kind: JobKind? = nil) throws -> [String: OptionValue] {
        // A bare NAME sets a true/false option to true.
        var options = try OptionAssignments.parse(option) { _, text in OptionValue.commandLine(text) }
        func add(_ name: String, _ value: OptionValue, from flag: String) throws {
            guard options[name] == nil else {
                throw CLIUsageError(message: "the option \(name) is given twice (\(flag) and --option \(name)=…); give it once")
            }
            options[name] = value
        }
        if let sha256 { try add("sha256", .commandLine(sha256), from: "--sha256") }
        // For uploads --recursive walks folders; for copies it says the source is a folder: neither is an option.
        if recursive && kind != .upload && kind != .copy { try add("recursive", .json(.bool(true)), from: "--recursive") }
        if let thumbnail { try add("thumbnail", .commandLine(thumbnail), from: "--thumbnail") }
        if let size { try add("size", .commandLine(size), from: "--size") }
        if let max { try add("max", .json(.int(max)), from: "--max") }
        if let account { try add("account", .commandLine(account), from: "--account") }
        if ignoreExisting && immutable {
            throw CLIUsageError(message: "--ignore-existing and --immutable contradict each other; give one")
        }
        if ignoreExisting { try add("existing", .commandLine("ignore"), from: "--ignore-existing") }
        if immutable { try add("existing", .commandLine("immutable"), from: "--immutable") }
        // A tree upload or a copy skips what is there already unless told not to.
        if ifChanged == true {
            try add("if_changed", .json(.bool(true)), from: "--if-changed")
        } else if ifChanged == nil, (kind == .upload && recursive) || kind == .copy, options["if_changed"] == nil {
            options["if_changed"] = .json(.bool(true))
        }
        if let pageSize { try add("page_size", .json(.int(pageSize)), from: "--page-size") }
        return options
    }

    /// A shorthand flag's help, from the providers' declarations of the option.
    static func help(_ option: String, valueName: String? = nil) -> ArgumentHelp {
        ArgumentHelp(ProviderRegistry.standard.help(forOption: option), valueName: valueName)
    }
}
