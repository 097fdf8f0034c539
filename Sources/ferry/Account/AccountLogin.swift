import ArgumentParser
import FerryCore
import FerryDropbox
import FerryStore
import Foundation

struct AccountLogin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Link a Dropbox account with OAuth 2 (authorization code + PKCE, offline access).",
        discussion: """
            Prints the authorize URL; open it, allow access, and paste the code shown. Ferry stores the refresh \
            token (encrypted) and releases the account's held jobs. For a new account give --provider dropbox and \
            --app-key (and the base URLs for a non-Dropbox server); an existing account keeps its settings.

            Examples:
              ferry account login photos
              ferry account login photos --provider dropbox --app-key abc123
            """)

    @Argument(help: ArgumentHelp("Account name.", valueName: "name"))
    var name: String

    @OptionGroup var provider: AccountProviderOptions

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await runReporting {
            _ = try provider.validated(requireProvider: false)
            guard EndpointSyntax.isValidAccountName(name) else {
                throw CLIUsageError(message: "account name '\(name)' must be letters, digits, _ . - (up to 63)")
            }
            try await AccountContext.with(connection) { context in
                let existing = try await context.store.account(named: name)
                var appKey = provider.appKey
                var appSecret = try provider.appSecretFile.map { try SecretInput.read($0, what: "app secret") }
                var endpoints = DropboxEndpoints(
                    api: provider.apiURL ?? DropboxEndpoints.production.api,
                    content: provider.contentURL ?? DropboxEndpoints.production.content,
                    authorize: provider.authorizeURL ?? DropboxEndpoints.production.authorize)
                if let existing {
                    guard existing.provider == "dropbox" else {
                        throw CLIUsageError(message: "\(name) is a \(existing.provider) account; login is for Dropbox (OAuth) accounts")
                    }
                    if provider.provider != nil || provider.appKey != nil || provider.apiURL != nil {
                        throw CLIUsageError(message: "\(name) exists: its settings stay as they are (remove and add it again to change them)")
                    }
                    // The stored settings; stale tokens are irrelevant here, only the app and hosts.
                    let stored = try await context.store.credentials(for: name, box: context.box)
                    appKey = stored.appKey
                    appSecret = stored.appSecret
                    endpoints = stored.dropboxEndpoints
                } else {
                    guard provider.provider == "dropbox", appKey != nil else {
                        throw CLIUsageError(message: "no account named \(name): to create it, give --provider dropbox --app-key KEY")
                    }
                }
                guard let appKey else {
                    throw CLIUsageError(message: "\(name) has no app key stored: remove it and add it again with --app-key")
                }
                let client = context.dropbox(endpoints)
                let pkce = PKCE.generate()
                let url = client.authorizeURL(appKey: appKey, codeChallenge: pkce.challenge, state: nil, redirectURI: nil)
                printError("Open this URL in a browser, allow access, then paste the authorization code here:")
                printError("  \(url)")
                FileHandle.standardError.write(Data("code: ".utf8))
                let code = try SecretInput.readLine(what: "authorization code")
                let grant: DropboxTokenGrant
                do {
                    grant = try await client.exchangeAuthorizationCode(
                        code, codeVerifier: pkce.verifier, appKey: appKey, appSecret: appSecret, redirectURI: nil)
                } catch let error as DropboxError {
                    throw AccountCommandError.provider(error, action: "exchange the authorization code (it may have expired or been used)")
                }
                guard let refreshToken = grant.refreshToken else {
                    throw CLIUsageError(message: "the provider returned no refresh token (offline access refused): check the app's settings")
                }
                let expiresAt = Date().addingTimeInterval(grant.expiresIn ?? 14400)
                if existing != nil {
                    try await context.store.linkAccount(
                        name, refreshToken: refreshToken, accessToken: grant.accessToken, accessTokenExpiresAt: expiresAt,
                        providerAccountID: grant.accountID, box: context.box, by: context.requester)
                } else {
                    try await context.store.addAccount(
                        FerryStore.NewAccount(
                            name: name, provider: "dropbox", appKey: appKey, appSecret: appSecret, refreshToken: refreshToken,
                            accessToken: grant.accessToken, accessTokenExpiresAt: expiresAt, apiURL: provider.apiURL,
                            contentURL: provider.contentURL, authorizeURL: provider.authorizeURL,
                            providerAccountID: grant.accountID, maxConcurrent: provider.maxConcurrent),
                        box: context.box, by: context.requester)
                }
                let held = existing?.unfinishedJobs ?? 0
                if json {
                    print(JSONValue.object(["account": .string(name), "linked": .bool(true), "released_jobs": .int(Int64(held))]).jsonText)
                    return
                }
                print("linked \(name)" + (held > 0 ? "; its \(held) unfinished job(s) can run again" : ""))
            }
        }
    }
}
