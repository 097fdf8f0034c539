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

    /// Writes `data` at `path` in the dev server's Dropbox as another client would (files/upload, overwriting).
    static func dropboxUpload(
        _ server: any DevServerControl, refreshToken: String, path: String, data: Data, clientModified: String? = nil
    ) async throws {
        let form = "grant_type=refresh_token&refresh_token=\(refreshToken)&client_id=\(DevServerProcess.appKey)&client_secret=\(server.appSecret)"
        let grant = try await server.request(
            "POST", "/oauth2/token", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(form.utf8))
        let access = try #require(grant["access_token"]?.stringValue)
        var commit: [String: JSONValue] = ["path": .string(path), "mode": .string("overwrite")]
        if let clientModified { commit["client_modified"] = .string(clientModified) }
        _ = try await server.request(
            "POST", "/2/files/upload",
            headers: ["Authorization": "Bearer \(access)", "Dropbox-API-Arg": JSONValue.object(commit).jsonText, "Content-Type": "application/octet-stream"],
            body: data)
    }

    /// Waits (at most 300 s) until no job of `batch` is left to run.
    static func settled(_ db: TestDatabase, _ batch: String) async throws {
        try await eventually(timeout: .seconds(300), "batch \(batch) to finish") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = $1 AND state NOT IN ('succeeded', 'failed', 'cancelled')", [batch]) == 0
        }
    }
}
