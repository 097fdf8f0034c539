import ArgumentParser
import FerryCore
import FerryStore

struct AccountRemove: AsyncParsableCommand, DatabaseCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Forget an account that no unfinished job uses (its history stays).",
        discussion: "Does not sign out at the provider: use ferry account revoke first for that.")

    @Argument(help: ArgumentHelp("Account name.", valueName: "name"), completion: CompletionValues.account)
    var name: String

    @OptionGroup var common: CommandOptions

    func run() async throws {
        try await runReporting {
            return try await connection.withStore(current: true) { store in
                try await store.accounts.remove(name, by: CommandTarget.requester)
                print(json ? JSONValue.object(["account": .string(name), "removed": .bool(true)]).jsonText : "removed \(name)")
            }
        }
    }
}
