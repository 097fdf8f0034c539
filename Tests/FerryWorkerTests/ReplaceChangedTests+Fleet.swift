import FerryCore
import FerryTestSupport
import Foundation
import Testing

/// The dev server's Drive and Dropbox set up for a fleet in process (the suite's own helpers: the provider suites'
/// take a `ferry dev-server` process).
extension ReplaceChangedTests {
    /// `ferry account add NAME --provider gdrive --client-id … --client-secret-file … --refresh-token-file -
    /// --api-url SERVER` with a refresh token of the dev server's Drive account `name`.
    static func addDrive(_ name: String, fleet: InProcessFleet) async throws {
        let server = fleet.server
        let reply = try await server.request("POST", "/__dev/gdrive/accounts", json: .object(["account": .string(name)]))
        let token = try #require(reply["refresh_token"]?.stringValue)
        try await fleet.addAccount(
            name, provider: "gdrive", values: ["client-id": DevServerProcess.appKey, "api-url": server.baseURL],
            secrets: ["client-secret": server.appSecret, "refresh-token": token])
    }

    /// Every item of the dev server's Drive account (path, md5Checksum …).
    static func driveItems(_ server: any DevServerControl, _ account: String) async throws -> [JSONValue] {
        try await server.request("POST", "/__dev/gdrive/items", json: .object(["account": .string(account)]))["items"]?.arrayValue ?? []
    }

    /// Waits (at most 300 s) until no job of `batch` is left to run.
    static func settled(_ db: TestDatabase, _ batch: String) async throws {
        try await eventually(timeout: .seconds(300), "batch \(batch) to finish") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = $1 AND state NOT IN ('succeeded', 'failed', 'cancelled')", [batch]) == 0
        }
    }
}
