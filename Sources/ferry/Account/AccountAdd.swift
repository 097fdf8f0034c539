import ArgumentParser
import FerryCore
import FerryProviders
import FerryStore
import FerryWorker
import Foundation

struct AccountAdd: AsyncParsableCommand, DatabaseCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add an account with credentials you already have.",
        discussion: """
            Each kind of account takes its own options (any other is refused, naming it). Secrets always come \
            from files or standard input (-), never from the command line (which `ps` shows); they are stored \
            encrypted. Ferry checks the credentials with the provider now (skip with --no-verify). A Dropbox \
            account without a refresh token waits for `ferry account login NAME`.

            Options of each kind:
            \(AccountKindOptions.help(ProviderRegistry.standard) { $0.inputs })

            A dev server (ferry dev-server) needs its app secret as any Dropbox app does: secret.txt below \
            holds ferry-dev-secret, its default.

            Examples:
              ferry account add photos --provider dropbox --app-key abc123 \\
                  --refresh-token-file ~/.dropbox-token
              pass show dropbox/token \\
                | ferry account add photos --provider dropbox --app-key abc123 \\
                    --refresh-token-file -
              ferry account add dev --provider dropbox --app-key ferry-dev \\
                  --app-secret-file secret.txt --refresh-token-file t.txt \\
                  --api-url http://127.0.0.1:8910 --content-url http://127.0.0.1:8910 \\
                      --authorize-url http://127.0.0.1:8910
              ferry account add flickr --provider flickr --api-key-file ~/.flickr-key
            """)

    @Argument(help: ArgumentHelp("Account name (letters, digits, _ . -), as used in dropbox:NAME:/path.", valueName: "name"))
    var name: String

    @OptionGroup var provider: AccountProviderOptions

    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The kind's own options, listed above.", valueName: "kind-options"),
        completion: .file())
    var kindOptions: [String] = []

    @Flag(name: .customLong("no-verify"), help: "Do not check the credentials with the provider now.")
    var noVerify = false

    @OptionGroup var common: CommandOptions

    func run() async throws {
        try await runReporting {
            let providerName = try provider.validated(requireProvider: true)!
            guard EndpointSyntax.isValidAccountName(name) else {
                throw CLIUsageError(message: "account name '\(name)' must be letters, digits, _ . - (up to 63, starting with a letter or digit)")
            }
            guard let kind = ProviderRegistry.standard.accountKind(of: providerName) else {
                throw CLIUsageError(message: "\(providerName) has no accounts")
            }
            let given = try AccountKindOptions(kindOptions, inputs: kind.inputs, provider: providerName)
            let inputs = AccountInputs(
                name: name, provider: providerName, maxConcurrent: provider.maxConcurrent, values: given.values,
                secrets: try given.readSecrets(), verify: !noVerify)
            try await AccountContext.with(connection) { context in
                let (account, note): (NewAccount, String)
                do {
                    (account, note) = try await kind.prepare(inputs, httpClient: context.http, logger: context.logger)
                } catch let error as AccountSetupError where error.code == .usage {
                    throw CLIUsageError(message: error.message)
                }
                try await context.store.accounts.add(account, box: context.box, by: context.requester)
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
