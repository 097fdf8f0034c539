import ArgumentParser
import FerryCore
import FerryStore
import Foundation

struct AccountList: AsyncParsableCommand, DatabaseCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List accounts (never their secrets).")

    @OptionGroup var common: CommandOptions

    func run() async throws {
        try await runReporting {
            return try await connection.withStore { store in
                let accounts = try await store.accounts.all()
                if json {
                    print(JSONValue.array(accounts.map(\.json)).jsonText)
                    return
                }
                guard !accounts.isEmpty else {
                    print("no accounts; add one with ferry account add NAME --provider dropbox …")
                    return
                }
                print(TablePrinter.render(
                    headers: ["NAME", "PROVIDER", "STATUS", "UNFINISHED", "TOKEN EXPIRES", "API"],
                    rows: accounts.map { account in
                        [
                            account.name, account.provider, account.status.rawValue, String(account.unfinishedJobs),
                            account.accessTokenExpiresAt.map { ScheduleTime.iso8601($0) } ?? "-", account.apiURL ?? "(provider default)",
                        ]
                    }))
            }
        }
    }
}

extension AccountRecord {
    /// The JSON form `ferry account list|show --json` prints: no secrets, only whether they are set.
    var json: JSONValue {
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        return .object([
            "name": .string(name), "provider": .string(provider), "app_key": text(appKey),
            "status": .string(status.rawValue), "status_reason": text(statusReason), "api_url": text(apiURL),
            "content_url": text(contentURL), "authorize_url": text(authorizeURL),
            "provider_account_id": text(providerAccountID), "max_concurrent": .int(Int64(maxConcurrent)),
            "has_secrets": .bool(hasSecrets), "has_refresh_token": .bool(hasRefreshToken),
            "access_token_expires_at": text(accessTokenExpiresAt.map { ScheduleTime.iso8601($0) }),
            "unfinished_jobs": .int(Int64(unfinishedJobs)), "settings": .object(settings),
            "created_at": .string(ScheduleTime.iso8601(createdAt)), "updated_at": .string(ScheduleTime.iso8601(updatedAt)),
        ])
    }
}
