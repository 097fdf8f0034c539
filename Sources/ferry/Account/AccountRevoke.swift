import ArgumentParser
import FerryCore
import FerryProviders
import FerryStore
import FerryWorker
import Foundation

struct AccountRevoke: AsyncParsableCommand, DatabaseCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Sign out: revoke the token at the provider, then forget it.",
        discussion: """
            For account kinds with tokens to revoke (Dropbox: /2/auth/token/revoke disables the access token and the \
            refresh token behind it); kinds with keys (S3, Flickr) have nothing to revoke. The account stays (with \
            its settings and history) and its jobs are held until ferry account login. A token the provider already \
            considers invalid counts as revoked.
            """)

    @Argument(help: ArgumentHelp("Account name.", valueName: "name"), completion: CompletionValues.account)
    var name: String

    @OptionGroup var common: CommandOptions

    func run() async throws {
        try await runReporting {
            try await AccountContext.with(connection) { context in
                guard let account = try await context.store.accounts.named(name) else {
                    throw FerryStoreError(.notFound, "no account named '\(name)'", fix: "check the name with ferry account list")
                }
                guard let revocation = ProviderRegistry.standard.accountKind(of: account.provider)?.revocation else {
                    throw CLIUsageError(message: "\(name) is a \(account.provider) account: nothing to revoke (use ferry account remove)")
                }
                var atProvider = false
                if account.status == .active {
                    do {
                        let tokens = context.tokens()
                        try await revocation.revoke(try await tokens.credentials(for: name), tokens: tokens, logger: context.logger)
                        atProvider = true
                    } catch let error as FerryStoreError where error.code == .accountNeedsReauthorization {
                        atProvider = true  // the refresh token was already rejected
                    } catch let error as FerryStoreError {
                        throw error
                    } catch let error as AccountSetupError {
                        throw AccountSetupError(error.code, error.message + "; nothing was forgotten")
                    } catch {
                        // Renewing the token to revoke failed at the provider (the error's text is safe: no secrets).
                        throw AccountSetupError(.unreachable, "could not get a token to revoke (\(error)); nothing was forgotten")
                    }
                }
                try await context.store.accounts.markRevoked(name, revokedAtProvider: atProvider, by: context.requester)
                if json {
                    print(JSONValue.object([
                        "account": .string(name), "revoked": .bool(true), "revoked_at_provider": .bool(atProvider),
                        "held_jobs": .int(Int64(account.unfinishedJobs)),
                    ]).jsonText)
                    return
                }
                print("signed out \(name)" + (atProvider ? " (token revoked at the provider)" : " (was not linked)")
                    + (account.unfinishedJobs > 0 ? "; \(account.unfinishedJobs) unfinished job(s) held until ferry account login \(name)" : ""))
            }
        }
    }
}
