import ArgumentParser
import FerryCore
import FerryProviders
import FerryStore
import FerryWorker
import Foundation

struct AccountShow: AsyncParsableCommand, DatabaseCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show one account and its recent history (never its secrets).")

    @Argument(help: ArgumentHelp("Account name.", valueName: "name"), completion: CompletionValues.account)
    var name: String

    @OptionGroup var common: CommandOptions

    func run() async throws {
        try await runReporting {
            return try await connection.withStore { store in
                guard let account = try await store.accounts.named(name) else {
                    throw FerryStoreError(.notFound, "no account named '\(name)'", fix: "check the name with ferry account list")
                }
                let events = try await store.accounts.events(of: name)
                // Each kind shows its own fields in its own words; the settings it does not show follow as they are.
                let kind = ProviderRegistry.standard.accountKind(of: account.provider)
                let own = kind?.shownFields(of: account) ?? AccountShow.unknownKindFields(of: account)
                if json {
                    var object = account.json
                    if case .object(var members) = object {
                        // The kind's own fields as printed, beside the generic columns kept for scripts.
                        members["fields"] = .object(Dictionary(own.map { ($0.label, JSONValue.string($0.value)) }, uniquingKeysWith: { first, _ in first }))
                        members["events"] = .array(events.map { event in
                            .object([
                                "type": .string(event.type), "recorded_at": .string(ScheduleTime.iso8601(event.recordedAt)),
                                "data": (try? JSONValue.parse(event.data)) ?? .null,
                            ])
                        })
                        object = .object(members)
                    }
                    print(object.jsonText)
                    return
                }
                var rows: [(String, String)] = [
                    ("name", account.name), ("provider", account.provider), ("status", account.status.rawValue),
                    ("status reason", account.statusReason ?? "-"),
                ]
                rows += own.map { ($0.label, $0.value) }
                rows += [("max concurrent", String(account.maxConcurrent)), ("unfinished jobs", String(account.unfinishedJobs))]
                let shown = Set(rows.map(\.0))
                for key in account.settings.keys.sorted() where !shown.contains(key.replacingOccurrences(of: "_", with: " ")) {
                    let value = account.settings[key]!
                    rows.append((key.replacingOccurrences(of: "_", with: " "), value.stringValue ?? value.jsonText))
                }
                for (label, value) in rows { print(label.padding(toLength: 22, withPad: " ", startingAt: 0) + value) }
                print("\nhistory:")
                for event in events { print("  \(ScheduleTime.iso8601(event.recordedAt))  \(event.type)  \(event.data)") }
            }
        }
    }

    /// An account of a provider this version of Ferry does not know: only whether secrets are stored.
    static func unknownKindFields(of account: AccountRecord) -> [AccountField] {
        [.secret("secret", isStored: account.hasSecrets), .secret("refresh token", isStored: account.hasRefreshToken)]
    }
}
