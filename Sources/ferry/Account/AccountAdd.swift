import ArgumentParser
import FerryCore
import FerryStore
import FerryWorker
import Foundation

struct AccountAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add an account with credentials you already have.",
        discussion: """
            Dropbox: give the app key and a refresh token (from a file, or - for standard input); Ferry checks it \
            by asking for an access token (skip with --no-verify). Without a refresh token the account waits for \
            `ferry account login NAME`. Flickr: give the API key with --api-key-file. Secrets always come from \
            files or standard input, never from the command line (which `ps` shows); they are stored encrypted. \
            Each provider takes only its own options: another one is refused, naming it.

            Examples:
              ferry account add photos --provider dropbox --app-key abc123 \\
                  --refresh-token-file ~/.dropbox-token
              pass show dropbox/token \\
                | ferry account add photos --provider dropbox --app-key abc123 \\
                    --refresh-token-file -
              ferry account add dev --provider dropbox --app-key ferry-dev \\
                  --refresh-token-file t.txt \\
                  --api-url http://127.0.0.1:8910 --content-url http://127.0.0.1:8910 \\
                      --authorize-url http://127.0.0.1:8910
              ferry account add flickr --provider flickr --api-key-file ~/.flickr-key
            """)

    @Argument(help: ArgumentHelp("Account name (letters, digits, _ . -), as used in dropbox:NAME:/path.", valueName: "name"))
    var name: String

    @OptionGroup var provider: AccountProviderOptions

    @Option(name: .customLong("refresh-token-file"), help: ArgumentHelp("Dropbox: file holding the refresh token; - reads standard input.", valueName: "file"))
    var refreshTokenFile: String?

    @Option(name: .customLong("api-key-file"), help: ArgumentHelp("Flickr: file holding the API key; - reads standard input.", valueName: "file"))
    var apiKeyFile: String?

    @Option(help: ArgumentHelp("S3: the region (us-east-1 …).", valueName: "region"))
    var region: String?

    @Option(name: .customLong("endpoint-url"), help: ArgumentHelp("S3: the endpoint of an S3-compatible store (MinIO, R2 …). Default: AWS.", valueName: "url"))
    var endpointURL: String?

    @Flag(name: .customLong("path-style"), help: "S3: address buckets in the path (http://host/bucket/key), as MinIO and moto need.")
    var pathStyle = false

    @Option(name: .customLong("access-key-id-file"), help: ArgumentHelp("S3: file holding the access key id; - reads standard input.", valueName: "file"))
    var accessKeyIDFile: String?

    @Option(name: .customLong("secret-access-key-file"), help: ArgumentHelp("S3: file holding the secret access key; - reads standard input.", valueName: "file"))
    var secretAccessKeyFile: String?

    @Option(name: .customLong("session-token-file"), help: ArgumentHelp("S3: file holding a session token (temporary credentials).", valueName: "file"))
    var sessionTokenFile: String?

    @Flag(name: .customLong("no-verify"), help: "Do not check the credentials with the provider now.")
    var noVerify = false

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var connection: ConnectionOptions

    /// The provider options given, by long name, and the secret files among them.
    var given: [(option: String, isSet: Bool)] {
        [
            ("app-key", provider.appKey != nil), ("app-secret-file", provider.appSecretFile != nil),
            ("refresh-token-file", refreshTokenFile != nil), ("api-key-file", apiKeyFile != nil),
            ("api-url", provider.apiURL != nil), ("content-url", provider.contentURL != nil),
            ("authorize-url", provider.authorizeURL != nil), ("region", region != nil), ("endpoint-url", endpointURL != nil),
            ("path-style", pathStyle), ("access-key-id-file", accessKeyIDFile != nil),
            ("secret-access-key-file", secretAccessKeyFile != nil), ("session-token-file", sessionTokenFile != nil),
        ]
    }

    func run() async throws {
        try await runReporting {
            let providerName = try provider.validated(requireProvider: true)!
            guard EndpointSyntax.isValidAccountName(name) else {
                throw CLIUsageError(message: "account name '\(name)' must be letters, digits, _ . - (up to 63, starting with a letter or digit)")
            }
            guard let kind = ProviderRegistry.standard.provider(named: providerName)?.accountKind else {
                throw CLIUsageError(message: "\(providerName) has no accounts")
            }
            if let wrong = given.first(where: { $0.isSet && !kind.addOptions.contains($0.option) }) {
                throw CLIUsageError(
                    message: "--\(wrong.option) is not an option for \(providerName) accounts (they take "
                        + kind.addOptions.map { "--" + $0 }.joined(separator: ", ") + ")")
            }
            let files: [(secret: String, path: String?)] = [
                ("app-secret", provider.appSecretFile), ("refresh-token", refreshTokenFile), ("api-key", apiKeyFile),
                ("access-key-id", accessKeyIDFile), ("secret-access-key", secretAccessKeyFile), ("session-token", sessionTokenFile),
            ]
            if files.filter({ $0.path == "-" }).count > 1 {
                throw CLIUsageError(message: "only one secret can come from standard input (-); put the others in files")
            }
            var secrets = [String: String]()
            for (secret, path) in files {
                guard let path else { continue }
                secrets[secret] = try SecretInput.read(path, what: secret.replacingOccurrences(of: "-", with: " "))
            }
            let inputs = AccountInputs(
                name: name, provider: providerName, appKey: provider.appKey, apiURL: provider.apiURL,
                contentURL: provider.contentURL, authorizeURL: provider.authorizeURL, region: region, endpointURL: endpointURL,
                pathStyle: pathStyle, maxConcurrent: provider.maxConcurrent, secrets: secrets, verify: !noVerify)
            try await AccountContext.with(connection) { context in
                let (account, note): (FerryStore.NewAccount, String)
                do {
                    (account, note) = try await kind.prepare(inputs, httpClient: context.http, logger: context.logger)
                } catch let error as AccountSetupError where error.code == .usage {
                    throw CLIUsageError(message: error.message)
                }
                try await context.store.addAccount(account, box: context.box, by: context.requester)
                let cap = account.maxConcurrent ?? 4
                if json {
                    print(JSONValue.object([
                        "account": .string(name), "provider": .string(providerName), "note": .string(note),
                        "max_concurrent": .int(Int64(cap)),
                    ]).jsonText)
                } else {
                    print(note)
                    print("at most \(cap) job(s) of \(name) run at once across the fleet; change it with ferry account update \(name) --max-concurrent N")
                }
            }
        }
    }
}
