import ArgumentParser
import FerryCore
import FerryStore

struct AccountUpdate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Change an account's cap or endpoints in place (recorded in its history).",
        discussion: """
            --max-concurrent is how many jobs of the account run at once across every worker (providers punish \
            parallel writes to one account; Dropbox serializes commits per account). Running workers use the new cap \
            at their next claim, and those waiting on the old one are woken at once. Secrets are changed with \
            ferry account login, not here.

            Examples:
              ferry account update photos --max-concurrent 16
              ferry account update photos --tps-limit 8     # requests per second, per worker process
              ferry account update dev --api-url http://127.0.0.1:8910 --content-url http://127.0.0.1:8910
            """)

    @Argument(help: ArgumentHelp("Account name.", valueName: "name"))
    var name: String

    @Option(name: .customLong("max-concurrent"), parsing: .unconditional, help: ArgumentHelp("Jobs of this account running at once, across all workers (1-1000).", valueName: "n"))
    var maxConcurrent: Int?

    @Option(name: .customLong("api-url"), help: ArgumentHelp("API base URL.", valueName: "url"))
    var apiURL: String?

    @Option(name: .customLong("content-url"), help: ArgumentHelp("Dropbox content / Flickr photo base URL.", valueName: "url"))
    var contentURL: String?

    @Option(name: .customLong("authorize-url"), help: ArgumentHelp("Dropbox authorize base URL.", valueName: "url"))
    var authorizeURL: String?

    @Option(name: .customLong("tps-limit"), parsing: .unconditional, help: ArgumentHelp(
        "Requests per second to this account's API, per worker process (Dropbox); 0 removes the limit.", valueName: "n"))
    var tpsLimit: Double?

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await runReporting {
            guard EndpointSyntax.isValidAccountName(name) else {
                throw EndpointSyntax.accountNameIssue(field: "name", line: nil)
            }
            if let tpsLimit, !(tpsLimit.isFinite && tpsLimit >= 0 && tpsLimit <= 100_000) {
                throw ValidationIssue(field: "--tps-limit", problem: "must be from 0 (no limit) to 100000 requests per second", fix: "for example --tps-limit 10")
            }
            if let maxConcurrent, !(1...1000).contains(maxConcurrent) {
                throw ValidationIssue(field: "--max-concurrent", problem: "must be from 1 to 1000", fix: "for example --max-concurrent 8")
            }
            for (flag, url) in [("--api-url", apiURL), ("--content-url", contentURL), ("--authorize-url", authorizeURL)] {
                guard let url else { continue }
                guard url.hasPrefix("https://") || url.hasPrefix("http://") else {
                    throw CLIUsageError(message: "\(flag) must be an http(s) URL, for example http://127.0.0.1:8910")
                }
                if EndpointSyntax.hasUserInfo(url) {
                    throw CLIUsageError(message: "\(flag) carries credentials (user:password@): remove them; account secrets go in their own flags and files, sealed")
                }
            }
            let changes = AccountChanges(
                maxConcurrent: maxConcurrent, apiURL: apiURL, contentURL: contentURL, authorizeURL: authorizeURL, tpsLimit: tpsLimit)
            guard !changes.isEmpty else {
                throw CLIUsageError(message: "say what to change: --max-concurrent N, --tps-limit N, --api-url, --content-url or --authorize-url")
            }
            let store = try await connection.makeCurrentStore(poolSize: 1)
            defer { store.client.close() }
            let account = try await store.updateAccount(name, changes, by: CommandTarget.requester)
            if json {
                print(JSONValue.object([
                    "account": .string(account.name), "max_concurrent": .int(Int64(account.maxConcurrent)),
                    "api_url": account.apiURL.map(JSONValue.string) ?? .null,
                    "content_url": account.contentURL.map(JSONValue.string) ?? .null,
                    "authorize_url": account.authorizeURL.map(JSONValue.string) ?? .null,
                    "tps_limit": account.settings["tps_limit"] ?? .null,
                ]).jsonText)
            } else {
                print("updated \(account.name): at most \(account.maxConcurrent) job(s) at once across the fleet")
            }
        }
    }
}
