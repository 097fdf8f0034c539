import FerryCore

extension ProviderRegistry {
    /// Every provider's options by kind of job, one line each, for `ferry enqueue --help` and docs/cli.md: all of
    /// it comes from the providers' declarations.
    public var optionsHelp: String {
        var lines = [String]()
        for provider in providers {
            for kind in JobKind.allCases {
                guard let example = provider.example(for: kind) else { continue }
                let options = provider.options(for: kind)
                guard !options.isEmpty else { continue }
                lines.append("  \(provider.displayName) \(kind == .upload ? "uploads" : "fetches") (\(example)):")
                for option in options {
                    lines.append("    \(option.name)=\(option.type.hint)  \(option.help)")
                }
            }
        }
        let existing = ExistingFilePolicy.option.declaration
        lines.append("  every fetch, upload and copy:")
        lines.append("    \(existing.name)=\(existing.type.hint)  \(existing.help)")
        let tree = TreeUpload.option.declaration
        lines.append("  every upload:")
        lines.append("    \(tree.name)=\(tree.type.hint)  \(tree.help)")
        lines.append("  every copy (from " + providers.filter { $0.example(for: .copy) != nil }.map(\.displayName).joined(separator: " or ")
            + "): the destination's upload options; a folder copy takes the filter flags")
        return lines.joined(separator: "\n")
    }

    /// Help for a shorthand flag of the option `name` (`--sha256` for `sha256`): which jobs take it and each
    /// declaration's help (once for jobs that declare it alike), so the flag's text is never written apart from
    /// the declarations.
    public func help(forOption name: String) -> String {
        var groups = [(help: String, takers: [String])]()
        for provider in providers {
            for kind in JobKind.allCases where provider.example(for: kind) != nil {
                guard let option = provider.options(for: kind).first(where: { $0.name == name }) else { continue }
                let taker = "\(provider.displayName) \(kind == .upload ? "uploads" : "fetches")"
                if let index = groups.firstIndex(where: { $0.help == option.help }) {
                    groups[index].takers.append(taker)
                } else {
                    groups.append((option.help, [taker]))
                }
            }
        }
        if name == ExistingFilePolicy.option.name { groups.append((ExistingFilePolicy.option.declaration.help, ["every fetch, upload and copy"])) }
        if name == TreeUpload.option.name { groups.append((TreeUpload.option.declaration.help, ["every upload"])) }
        guard !groups.isEmpty else { return "No provider takes this option." }
        return groups.map { "\($0.takers.joined(separator: ", ")): \($0.help)" }.joined(separator: " ")
    }
}
