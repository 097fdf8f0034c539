import ArgumentParser
import FerryCore
import FerryDropbox
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
            `ferry account login NAME`. Flickr: give the API key with --api-key-file.

            Examples:
              ferry account add photos --provider dropbox --app-key abc123 --refresh-token-file ~/.dropbox-token
              pass show dropbox/token | ferry account add photos --provider dropbox --app-key abc123 --refresh-token-file -
              ferry account add dev --provider dropbox --app-key ferry-dev --refresh-token-file t.txt \\
                  --api-url http://127.0.0.1:8910 --content-url http://127.0.0.1:8910 --authorize-url http://127.0.0.1:8910
              ferry account add flickr --provider flickr --api-key-file ~/.flickr-key
            """)

    @Argument(help: ArgumentHelp("Account name (letters, digits, _ . -), as used in dropbox:NAME:/path.", valueName: "name"))
    var name: String

    @OptionGroup var provider: AccountProviderOptions

    @Option(name: .customLong("refresh-token-file"), help: ArgumentHelp("File holding the refresh token; - reads standard input.", valueName: "file"))
    var refreshTokenFile: String?

    @Option(name: .customLong("api-key-file"), help: ArgumentHelp("Flickr: file holding the API key; - reads standard input.", valueName: "file"))
    var apiKeyFile: String?

    @Flag(name: .customLong("no-verify"), help: "Do not check the refresh token with the provider now.")
    var noVerify = false

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await runReporting {
            let providerName = try provider.validated(requireProvider: true)!
            guard EndpointSyntax.isValidAccountName(name) else {
                throw CLIUsageError(message: "account name '\(name)' must be letters, digits, _ . - (up to 63, starting with a letter or digit)")
            }
            if refreshTokenFile == "-" && (provider.appSecretFile == "-" || apiKeyFile == "-") {
                throw CLIUsageError(message: "only one secret can come from standard input (-); put the others in files")
            }
            try await AccountContext.with(connection) { context in
                var account = FerryStore.NewAccount(
                    name: name, provider: providerName, appKey: provider.appKey, appSecret: nil, refreshToken: nil,
                    apiURL: provider.apiURL, contentURL: provider.contentURL, authorizeURL: provider.authorizeURL,
                    maxConcurrent: provider.maxConcurrent)
                account.linkedWithoutLogin = ProviderRegistry.standard.provider(named: providerName)?.accountKind?.linkedWithoutLogin ?? false
                switch providerName {
                case "dropbox":
                    guard provider.appKey != nil else {
                        throw CLIUsageError(message: "--app-key is required for Dropbox (the app's OAuth client_id)")
                    }
                    guard apiKeyFile == nil else { throw CLIUsageError(message: "--api-key-file is for Flickr accounts") }
                    account.appSecret = try provider.appSecretFile.map { try SecretInput.read($0, what: "app secret") }
                    account.refreshToken = try refreshTokenFile.map { try SecretInput.read($0, what: "refresh token") }
                    if let refreshToken = account.refreshToken, !noVerify {
                        let endpoints = DropboxEndpoints(
                            api: provider.apiURL ?? DropboxEndpoints.production.api,
                            content: provider.contentURL ?? DropboxEndpoints.production.content,
                            authorize: provider.authorizeURL ?? DropboxEndpoints.production.authorize)
                        let grant: DropboxTokenGrant
                        do {
                            grant = try await context.dropbox(endpoints).refreshAccessToken(
                                refreshToken: refreshToken, appKey: provider.appKey!, appSecret: account.appSecret)
                        } catch let error as DropboxError {
                            throw AccountCommandError.verification(error)
                        }
                        account.accessToken = grant.accessToken
                        account.accessTokenExpiresAt = Date().addingTimeInterval(grant.expiresIn ?? 14400)
                    }
                default:
                    guard let apiKeyFile else {
                        throw CLIUsageError(message: "--api-key-file is required for Flickr (the API key, from a file or -)")
                    }
                    guard refreshTokenFile == nil, provider.appSecretFile == nil else {
                        throw CLIUsageError(message: "Flickr accounts take only --api-key-file (public photos need no OAuth)")
                    }
                    // The Flickr API key is kept sealed like any other secret.
                    account.appSecret = try SecretInput.read(apiKeyFile, what: "Flickr API key")
                    account.refreshToken = nil
                }
                try await context.store.addAccount(account, box: context.box, by: context.requester)
                if providerName == "dropbox" && account.refreshToken == nil {
                    print("added \(name) (dropbox); link it with: ferry account login \(name)")
                } else {
                    print("added \(name) (\(providerName))" + (account.accessToken != nil ? ", refresh token verified" : ""))
                }
            }
        }
    }
}
