import FerryCore
import FerryTestSupport
import Foundation
import Testing

/// `ferry account login` for OneDrive: the identity platform's code flow with PKCE and the loopback redirect, with
/// nothing pasted; then `account show` tells what is stored without showing a secret.
@Suite("OneDrive account login through the loopback redirect", .tags(.process, .postgres))
struct OneDriveLoginTests {
    @Test("the browser's return to 127.0.0.1 links a new OneDrive account (public client, no secret): the state checked, the refresh token stored sealed")
    func browserReturnLinks() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("onedrive_login")
        _ = try await server.request("POST", "/__dev/onedrive/accounts", json: .object(["account": .string("me")]))
        let login = try BackgroundProcess(
            ferry: ["account", "login", "od", "--provider", "onedrive", "--client-id", DevServerProcess.appKey, "--api-url", server.baseURL],
            databaseURL: db.url, environment: DropboxAccounts.environment)
        var url: String?
        try await eventually(timeout: .seconds(300), "the authorize URL to be printed") {
            url = login.log.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first { $0.hasPrefix(server.baseURL) }
            return url != nil && login.log.contains("listens on 127.0.0.1")
        }
        let address = try #require(url)
        #expect(address.hasPrefix(server.baseURL + "/common/oauth2/v2.0/authorize?") && address.contains("code_challenge_method=S256"))
        #expect(address.contains("offline_access"))
        let browser = try await ChildProcess.run("/usr/bin/curl", ["-fsSL", "--max-time", "30", address])
        let answer = browser.stdout
        #expect(browser.status == 0 && answer.contains("You can close this window"), "\(answer)\(browser.stderr)")
        #expect(try await login.waitForExit(timeout: .seconds(60)) == 0, "\(login.log)")
        #expect(login.log.contains("linked od"))
        let stored = try await db.query("SELECT provider, status FROM ferry.account_status WHERE name = 'od'").rows
        #expect(try stored.first?.decode(String.self, at: 0) == "onedrive" && stored.first?.decode(String.self, at: 1) == "active")

        let show = try await FerryProcess.run(["account", "show", "od"], databaseURL: db.url, environment: DropboxAccounts.environment)
        #expect(show.status == 0 && show.stdout.contains("refresh token") && show.stdout.contains(server.baseURL), "\(show.stdout)\(show.stderr)")
        #expect(!show.stdout.contains("M.C5"), "no token is printed")
    }
}
