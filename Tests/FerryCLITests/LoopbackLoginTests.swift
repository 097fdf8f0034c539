import FerryCore
import FerryTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `ferry account login` for a flow that redirects to the loopback address (Google's installed-app flow): the
/// command listens there and takes the code from the browser's return, with nothing pasted.
@Suite("account login through the loopback redirect", .tags(.process, .postgres))
struct LoopbackLoginTests {
    @Test("the browser's return to 127.0.0.1 links a new Drive account: no code pasted, the state checked, the token stored sealed")
    func browserReturnLinks() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("loopback_login")
        _ = try await server.request("POST", "/__dev/gdrive/accounts", json: .object(["account": .string("me")]))
        // Another process holds the preferred port (as any program may): the login listens on a free one instead.
        let squatter = Self.holdPort(53682)
        defer { if squatter >= 0 { close(squatter) } }
        let login = try BackgroundProcess(
            ferry: ["account", "login", "me", "--provider", "gdrive", "--client-id", DevServerProcess.appKey,
                    "--client-secret-file", server.appSecretFile, "--api-url", server.baseURL],
            databaseURL: db.url, environment: DropboxAccounts.environment)
        var url: String?
        try await eventually(timeout: .seconds(300), "the authorize URL to be printed") {
            url = login.log.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first { $0.hasPrefix(server.baseURL) }
            return url != nil && login.log.contains("listens on 127.0.0.1")
        }
        let authorize = try #require(url)
        let redirect = try #require(URLComponents(string: authorize)?.queryItems?.first { $0.name == "redirect_uri" }?.value)
        #expect(redirect.hasPrefix("http://127.0.0.1:") && login.log.contains("listens on \(redirect.dropFirst(7).dropLast())"), "\(login.log)")
        #expect(!redirect.contains(":53682/"), "the held port is not the one sent to the browser: \(redirect)")
        // The browser: the consent page redirects to the loopback address, which the command answers.
        let browser = try await ChildProcess.run("/usr/bin/curl", ["-fsSL", "--max-time", "30", try #require(url)])
        let answer = browser.stdout
        #expect(browser.status == 0 && answer.contains("You can close this window"), "\(answer)\(browser.stderr)")
        #expect(try await login.waitForExit(timeout: .seconds(60)) == 0, "\(login.log)")
        #expect(login.log.contains("linked me"))
        let stored = try await db.query("SELECT provider, status FROM ferry.account_status WHERE name = 'me'").rows
        #expect(try stored.first?.decode(String.self, at: 0) == "gdrive" && stored.first?.decode(String.self, at: 1) == "active")
    }

    /// A listening socket on 127.0.0.1:`port`, or -1 when someone else already has it (which the test then relies on).
    static func holdPort(_ port: Int) -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 1) == 0 else {
            close(descriptor)
            return -1
        }
        return descriptor
    }
}
