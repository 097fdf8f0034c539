import FerryCore
import Foundation
import Postgres

extension AccountRecord {
    /// A row of `ferry.account_status` with `unfinished_jobs` and `settings` (text) beside it.
    init(row: PostgresRow) throws {
        self.init(
            name: try row.decode(column: "name"), provider: try row.decode(column: "provider"),
            appKey: try row.decode(String?.self, column: "app_key"),
            status: Status(rawValue: try row.decode(column: "status")) ?? .needsReauth,
            statusReason: try row.decode(String?.self, column: "status_reason"),
            apiURL: try row.decode(String?.self, column: "api_url"), contentURL: try row.decode(String?.self, column: "content_url"),
            authorizeURL: try row.decode(String?.self, column: "authorize_url"),
            providerAccountID: try row.decode(String?.self, column: "provider_account_id"),
            maxConcurrent: try row.decode(column: "max_concurrent"), hasSecrets: try row.decode(column: "has_secrets"),
            hasRefreshToken: try row.decode(column: "has_refresh_token"),
            accessTokenExpiresAt: try row.decode(Date?.self, column: "access_token_expires_at"),
            createdAt: try row.decode(column: "created_at"), updatedAt: try row.decode(column: "updated_at"),
            unfinishedJobs: try row.decode(column: "unfinished_jobs"),
            settings: (try? JSONValue.parse(try row.decode(String.self, column: "settings")))?.objectValue ?? [:])
    }
}
