import ArgumentParser
import FerryCore
import FerryStore
import FerryWorker

struct AccountUpdate: AsyncParsableCommand, DatabaseCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Change an account's cap or endpoints in place (recorded in its history).",
        discussion: """
            --max-concurrent is how many transfers of the account run at once across every worker (providers punish \
            parallel writes to one account); a job whose data is up and that waits only for its commit does not \
            count. Running workers use the new cap at their next claim, and those waiting on the old one are woken \
            at once. --tps-limit and --bwlimit are one budget for the whole fleet: the worker processes using the \
            account share them by demand, rebalanced every second, and follow a change within seconds. Secrets are \
            changed with ferry account login, not here.

            Examples:
              ferry account update photos --max-concurrent 16
              ferry account update photos --tps-limit 8   # requests/s, whole fleet
              ferry account update photos --bwlimit 20M   # bytes/s, whole fleet
              ferry account update archive --endpoint-url http://127.0.0.1:9000
              ferry account update dev --api-url http://127.0.0.1:8910 \\
                  --content-url http://127.0.0.1:8910
            """)

    @Argument(help: ArgumentHelp("Account name.", valueName: "name"), completion: CompletionValues.account)
    var name: String

    @Option(name: .customLong("max-concurrent"), parsing: .unconditional, help: ArgumentHelp("Transfers of this account running at once, across all workers (1-1000).", valueName: "n"))
    var maxConcurrent: Int?

    @Option(name: .customLong("api-url"), help: ArgumentHelp("API base URL.", valueName: "url"))
    var apiURL: String?

    @Option(name: .customLong("content-url"), help: ArgumentHelp("Dropbox content / Flickr photo base URL.", valueName: "url"))
    var contentURL: String?

    @Option(name: .customLong("authorize-url"), help: ArgumentHelp("Dropbox authorize base URL.", valueName: "url"))
    var authorizeURL: String?

    @Option(name: .customLong("tps-limit"), parsing: .unconditional, help: ArgumentHelp(
        "Requests per second to this account's API, for all worker processes together; 0 removes the limit.", valueName: "n"))
    var tpsLimit: Double?

    @Option(name: .customLong("bwlimit"), help: ArgumentHelp(
        "Bytes per second for this account's transfers, for all worker processes together, as rclone's --bwlimit: 20M, 512K (K/M/G = KiB/MiB/GiB; a bare number is KiB); 0 or off removes the limit.",
        valueName: "rate"))
    var bwlimit: String?

    @Option(name: .customLong("endpoint-url"), help: ArgumentHelp(
        "An S3 account's endpoint (MinIO, R2 …), as account add --endpoint-url sets it.", valueName: "url"))
    var endpointURL: String?

    @OptionGroup var common: CommandOptions

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
            for (flag, url) in [("--api-url", apiURL), ("--content-url", contentURL), ("--authorize-url", authorizeURL),
                                ("--endpoint-url", endpointURL)] {
                guard let url else { continue }
                guard url.hasPrefix("https://") || url.hasPrefix("http://") else {
                    throw CLIUsageError(message: "\(flag) must be an http(s) URL, for example http://127.0.0.1:8910")
                }
                if EndpointSyntax.hasUserInfo(url) {
                    throw CLIUsageError(message: "\(flag) carries credentials (user:password@): remove them; account secrets go in their own flags and files, sealed")
                }
            }
            var bandwidthLimit: Int64?
            if let bwlimit {
                bandwidthLimit = try BandwidthLimit.rate(bwlimit, field: "--bwlimit")
            }
            let changes = AccountChanges(
                maxConcurrent: maxConcurrent, apiURL: apiURL, contentURL: contentURL, authorizeURL: authorizeURL, tpsLimit: tpsLimit,
                bandwidthLimit: bandwidthLimit, endpointURL: endpointURL)
            guard !changes.isEmpty else {
                throw CLIUsageError(
                    message: "say what to change: --max-concurrent N, --tps-limit N, --bwlimit RATE, --api-url, --content-url, --authorize-url or --endpoint-url")
            }
            return try await connection.withStore(current: true) { store in
                // The endpoint is an S3 account's setting: another kind's is refused before anything changes.
                if endpointURL != nil, let existing = try await store.accounts.named(name), existing.provider != "s3" {
                    throw CLIUsageError(
                        message: "--endpoint-url is an S3 account's; \(name) is a \(existing.provider) account: use --api-url and --content-url")
                }
                try await Self.checkKeyIfGiven(store)
                let account = try await store.accounts.update(name, changes, by: CommandTarget.requester)
                if json {
                    print(JSONValue.object([
                        "account": .string(account.name), "max_concurrent": .int(Int64(account.maxConcurrent)),
                        "api_url": account.apiURL.map(JSONValue.string) ?? .null,
                        "content_url": account.contentURL.map(JSONValue.string) ?? .null,
                        "authorize_url": account.authorizeURL.map(JSONValue.string) ?? .null,
                        "tps_limit": account.settings["tps_limit"] ?? .null,
                        "bwlimit": account.settings["bwlimit"] ?? .null,
                        "endpoint_url": account.settings["endpoint_url"] ?? .null,
                    ]).jsonText)
                } else {
                    var limits = ""
                    if let tps = account.settings["tps_limit"] { limits += ", \(tps.jsonText) requests/s across the fleet" }
                    if let rate = account.settings["bwlimit"]?.intValue { limits += ", \(TablePrinter.bytes(rate))/s across the fleet" }
                    print("updated \(account.name): at most \(account.maxConcurrent) transfer(s) at once across the fleet\(limits)")
                }
            }
        }
    }

    /// Update seals nothing and needs no key; but a FERRY_SECRET_KEY set in the shell that runs it is the key its
    /// next `add` or `login` will seal with, so a wrong one is refused now, before it becomes stuck jobs.
    static func checkKeyIfGiven(_ store: FerryStore) async throws {
        let key: SecretKey
        do {
            key = try SecretKey.fromEnvironment()
        } catch let error as SecretKeyError where error.code == .missing {
            return
        }
        try await store.accounts.checkSecretKey(SecretBox(key: key))
    }
}
