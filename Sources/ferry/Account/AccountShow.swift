import ArgumentParser
import FerryCore
import FerryStore
import Foundation

struct AccountShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show one account and its recent history (never its secrets).")

    @Argument(help: ArgumentHelp("Account name.", valueName: "name"))
    var name: String

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await runReporting {
            let store = connection.makeStore(poolSize: 1)
            defer { store.client.close() }
            guard let account = try await store.account(named: name) else {
                throw FerryStoreError(.notFound, "no account named '\(name)'", fix: "check the name with ferry account list")
            }
            let events = try await store.accountEvents(name)
            if json {
                var object = account.json
                if case .object(var members) = object {
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
                ("status reason", account.statusReason ?? "-"), ("app key", account.appKey ?? "-"),
                ("app secret", account.hasAppSecret ? "stored (encrypted)" : "none"),
                ("refresh token", account.hasRefreshToken ? "stored (encrypted)" : "none"),
                ("access token expires", account.accessTokenExpiresAt.map { ScheduleTime.iso8601($0) } ?? "-"),
                ("api url", account.apiURL ?? "(provider default)"), ("content url", account.contentURL ?? "(provider default)"),
                ("authorize url", account.authorizeURL ?? "(provider default)"),
                ("max concurrent", String(account.maxConcurrent)), ("unfinished jobs", String(account.unfinishedJobs)),
            ]
            for key in account.settings.keys.sorted() {
                let value = account.settings[key]!
                rows.append((key.replacingOccurrences(of: "_", with: " "), value.stringValue ?? value.jsonText))
            }
            for (label, value) in rows { print(label.padding(toLength: 22, withPad: " ", startingAt: 0) + value) }
            print("\nhistory:")
            for event in events { print("  \(ScheduleTime.iso8601(event.recordedAt))  \(event.type)  \(event.data)") }
        }
    }
}
