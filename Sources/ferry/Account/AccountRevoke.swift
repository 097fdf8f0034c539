import ArgumentParser
import FerryCore
import FerryDropbox
import FerryStore
import Foundation

struct AccountRevoke: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Sign out: revoke the token at the provider, then forget it.",
        discussion: """
            Dropbox's /2/auth/token/revoke disables the access token and the refresh token behind it. The account \
            stays (with its settings and history) and its jobs are held until ferry account login. A token the \
            provider already considers invalid counts as revoked.
            """)

    @Argument(help: ArgumentHelp("Account name.", valueName: "name"))
    var name: String

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await runReporting {
            try await AccountContext.with(connection) { context in
                guard let account = try await context.store.account(named: name) else {
                    throw FerryStoreError(.notFound, "no account named '\(name)'", fix: "check the name with ferry account list")
                }
                guard account.provider == "dropbox" else {
                    throw CLIUsageError(message: "\(name) is a \(account.provider) account: nothing to revoke (use ferry account remove)")
                }
                var atProvider = false
                if account.status == .active {
                    do {
                        let credentials = try await context.tokens().credentials(for: name)
                        try await context.tokens().dropbox(credentials).revokeToken(accessToken: credentials.accessToken!)
                        atProvider = true
                    } catch let error as DropboxError where error.code == .invalidAccessToken || error.code == .expiredAccessToken {
                        atProvider = true  // already unusable at the provider
                    } catch let error as DropboxError {
                        throw AccountCommandError.provider(error, action: "revoke the token at the provider; nothing was forgotten")
                    } catch let error as FerryStoreError where error.code == .accountNeedsReauthorization {
                        atProvider = true  // the refresh token was already rejected
                    }
                }
                try await context.store.markAccountRevoked(name, revokedAtProvider: atProvider, by: context.requester)
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
