import ArgumentParser
import FerryCore
import FerryWorker

/// Options describing a provider account (shared by `add` and `login`).
struct AccountProviderOptions: ParsableArguments {
    @Option(help: "dropbox or flickr.")
    var provider: String?

    @Option(name: .customLong("app-key"), help: ArgumentHelp("Dropbox app key (OAuth client_id; not a secret).", valueName: "key"))
    var appKey: String?

    @Option(
        name: .customLong("app-secret-file"),
        help: ArgumentHelp("File holding the Dropbox app secret (omit for PKCE-only apps); - reads standard input.", valueName: "file"))
    var appSecretFile: String?

    @Option(name: .customLong("api-url"), help: ArgumentHelp("API base URL (default: the provider's real host).", valueName: "url"))
    var apiURL: String?

    @Option(name: .customLong("content-url"), help: ArgumentHelp("Dropbox content / Flickr photo base URL.", valueName: "url"))
    var contentURL: String?

    @Option(name: .customLong("authorize-url"), help: ArgumentHelp("Dropbox authorize base URL (default https://www.dropbox.com).", valueName: "url"))
    var authorizeURL: String?

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
        for (name, url) in [("--api-url", apiURL), ("--content-url", contentURL), ("--authorize-url", authorizeURL)] {
            if let url, !(url.hasPrefix("https://") || url.hasPrefix("http://")) {
                throw CLIUsageError(message: "\(name) must be an http(s) URL, for example http://127.0.0.1:8910")
            }
            if let url, EndpointSyntax.hasUserInfo(url) {
                // Never echo it: the URL holds the credentials.
                throw CLIUsageError(message: "\(name) carries credentials (user:password@): remove them; account secrets go in their own flags and files, sealed")
            }
        }
        if let maxConcurrent, !(1...1000).contains(maxConcurrent) {
            throw CLIUsageError(message: "--max-concurrent must be between 1 and 1000")
        }
        return provider
    }
}
