import FerryStore
import FerryWorker
import Foundation

extension AccountLogin {
    /// The app and hosts to link: the stored account's, or a new account's from the kind options given.
    func app(
        of existing: AccountRecord?, flow: any AccountLoginFlow, given: AccountKindOptions, secrets: [String: String],
        provider providerName: String, context: AccountContext
    ) async throws -> AccountApp {
        do {
            if let existing {
                // The stored app and hosts; stale tokens are irrelevant here.
                return try flow.app(of: try await context.store.accounts.credentials(for: existing.name, box: context.box))
            }
            let inputs = AccountInputs(
                name: name, provider: providerName, maxConcurrent: provider.maxConcurrent, values: given.values, secrets: secrets)
            return try flow.app(from: inputs)
        } catch let error as AccountSetupError where error.code == .usage {
            throw CLIUsageError(message: error.message)
        }
    }

    /// The token of a kind linked with a pasted token: the one read from its file (or `-`), else a line pasted on
    /// standard input. Never an argument, never printed.
    static func pastedToken(_ given: String?, input: AccountInput, started: AccountLoginStart) throws -> String {
        if let given { return given }
        printError("Make a new token at \(started.url) (or give it with \(input.flag) FILE), then paste it here:")
        FileHandle.standardError.write(Data("token: ".utf8))
        return try SecretInput.readLine(what: "token")
    }
}
