import FerryCore
import FerryStore
import FerryTestSupport
import FerryTesting

@testable import FerryWorker

/// The same in-process dev server speaks Dropbox too: an account on it, and the registry's Dropbox handlers.
extension GoogleDriveWorkerFixture {
    /// Adds the Dropbox account `name` (a refresh token of the dev server, its URLs) to the test database and the
    /// job store.
    func addDropboxAccount(_ name: String) async throws {
        let refresh = server.issueRefreshToken(account: name)
        let box = SecretBox(key: try SecretKey(text: DropboxAccounts.secretKey))
        try await store.accounts.add(
            NewAccount(
                name: name, provider: "dropbox", appKey: Self.clientID, secrets: ["app_secret": Self.clientSecret], refreshToken: refresh,
                apiURL: baseURL, contentURL: baseURL, authorizeURL: baseURL),
            box: box, by: "test")
        jobs.setAccount(MemoryAccount(name: name, provider: "dropbox", maxConcurrent: 16))
    }

    /// The registered handler of `kind` for `endpoint`'s provider, as a fresh worker makes it.
    func handler(_ kind: JobKind, for endpoint: String) -> any JobHandler {
        (Self.registry.provider(for: endpoint) as? any ProviderHandlers)!.handler(for: kind, environment: environment)!
    }
}
