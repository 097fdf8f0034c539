import ArgumentParser
import FerryCore
import FerryProviders
import FerryStore
import FerryWorker
import Foundation

struct AccountLogin: AsyncParsableCommand, DatabaseCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Link an account with OAuth 2 (authorization code + PKCE, offline access).",
        discussion: """
            Prints the authorize URL; open it, allow access, and paste the code shown. Ferry stores the refresh \
            token (encrypted) and releases the account's held jobs. For a new account give --provider and the \
            kind's options below; an existing account keeps its settings. Kinds linked with a token the person \
            makes at the provider (Instagram) take it with --token-file FILE (- or nothing: pasted on standard \
            input), checked with the provider before it is stored; that is how a held account gets a new token.

            Options of each kind that links with OAuth, for a new account:
            \(AccountKindOptions.help(ProviderRegistry.standard) { $0.login?.inputs })

            Examples:
              ferry account login photos
              ferry account login photos --provider dropbox --app-key abc123
              ferry account login ig --token-file ~/.ig-token
            """)

    @Argument(help: ArgumentHelp("Account name.", valueName: "name"), completion: CompletionValues.account)
    var name: String

    @OptionGroup var provider: AccountProviderOptions

    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("For a new account, its kind's own options, listed above.", valueName: "kind-options"),
        completion: .file())
    var kindOptions: [String] = []

    @OptionGroup var common: CommandOptions

    func run() async throws {
        try await runReporting {
            _ = try provider.validated(requireProvider: false)
            guard EndpointSyntax.isValidAccountName(name) else {
                throw CLIUsageError(message: "account name '\(name)' must be letters, digits, _ . - (up to 63)")
            }
            try await AccountContext.with(connection) { context in
                let existing = try await context.store.accounts.named(name)
                let registry = ProviderRegistry.standard
                let providerName: String
                if let existing {
                    if provider.provider != nil {
                        throw CLIUsageError(message: "\(name) exists: its settings stay as they are (remove and add it again to change them)")
                    }
                    providerName = existing.provider
                } else {
                    guard let given = provider.provider else {
                        throw CLIUsageError(message: "no account named \(name): to create it, give --provider and the kind's options (see --help)")
                    }
                    providerName = given
                }
                guard let flow = registry.accountKind(of: providerName)?.login else {
                    let names = registry.accountProviderNames.filter { registry.accountKind(of: $0)?.login != nil }
                    throw CLIUsageError(
                        message: "\(name) is a \(providerName) account; login is for accounts linked with OAuth or a token (\(names.joined(separator: ", ")))")
                }
                if existing != nil, !kindOptions.isEmpty, flow.pastedToken == nil {
                    throw CLIUsageError(message: "\(name) exists: its settings stay as they are (remove and add it again to change them)")
                }
                let tokenInputs = flow.pastedToken.map { [$0] } ?? []
                let given = try AccountKindOptions(kindOptions, inputs: (existing == nil ? flow.inputs : []) + tokenInputs, provider: providerName)
                let secrets = try given.readSecrets()
                let app = try await self.app(of: existing, flow: flow, given: given, secrets: secrets, provider: providerName, context: context)
                // Listen before the URL is made: the URL names the port actually listened on.
                let listener = flow.pastedToken == nil ? flow.loopbackPort.flatMap { LoopbackRedirect.listen(preferring: $0) } : nil
                let started = flow.start(app, loopbackPort: listener?.port, httpClient: context.http, logger: context.logger)
                let code: String
                if let input = flow.pastedToken {
                    code = try Self.pastedToken(secrets[input.name], input: input, started: started)
                } else {
                    code = try await Self.authorizationCode(started, listener: listener)
                }
                let grant = try await flow.finish(code: code, started: started, app: app, httpClient: context.http, logger: context.logger)
                if existing != nil {
                    try await context.store.accounts.link(
                        name, refreshToken: grant.refreshToken, accessToken: grant.accessToken,
                        accessTokenExpiresAt: grant.accessTokenExpiresAt, providerAccountID: grant.providerAccountID,
                        box: context.box, by: context.requester)
                } else {
                    try await context.store.accounts.add(
                        NewAccount(
                            name: name, provider: providerName, appKey: app.appKey, secrets: flow.secrets(of: app),
                            refreshToken: grant.refreshToken, accessToken: grant.accessToken,
                            accessTokenExpiresAt: grant.accessTokenExpiresAt, apiURL: app.apiURL, contentURL: app.contentURL,
                            authorizeURL: app.authorizeURL, providerAccountID: grant.providerAccountID,
                            maxConcurrent: provider.maxConcurrent),
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
