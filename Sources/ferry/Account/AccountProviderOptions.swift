import ArgumentParser
import FerryCore
import FerryProviders
import FerryWorker

/// What every account has, whatever its kind (shared by `add` and `login`); each kind's own options are parsed
/// by ``AccountKindOptions``.
struct AccountProviderOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The kind of account: " + ProviderRegistry.standard.accountProviderNames.joined(separator: ", ") + ".", valueName: "provider"),
            completion: CompletionValues.accountProvider)
    var provider: String?

    @Option(name: .customLong("max-concurrent"), help: "Jobs of this account running at once, across all workers (default 4).")
    var maxConcurrent: Int?

    /// Checks what was given, naming the fix for anything wrong.
    func validated(requireProvider: Bool) throws -> String? {
        let names = ProviderRegistry.standard.accountProviderNames
        if let provider, !names.contains(provider) {
            throw CLIUsageError(message: "--provider must be one of: " + names.joined(separator: ", "))
        }
        if requireProvider && provider == nil {
            throw CLIUsageError(message: "--provider is required (" + names.joined(separator: ", ") + ")")
        }
        if let maxConcurrent, !(1...1000).contains(maxConcurrent) {
            throw CLIUsageError(message: "--max-concurrent must be between 1 and 1000")
        }
        return provider
    }
}
