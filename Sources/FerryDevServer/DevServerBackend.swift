import Logging

/// Everything the request handlers share: settings, accounts and tokens, files, the stand-in
/// services (web files, Flickr), statistics and the fault injector.
final class DevServerBackend: Sendable {
    let configuration: DevServerConfiguration
    let tokens: TokenStore
    let files: FileStore
    let web: WebStore
    let flickr: FlickrStore
    /// The Google Drive emulation (`GoogleDrive/`).
    let gdrive: GoogleDriveStore
    let stats = StatsRecorder()
    let faults: FaultInjector
    /// Per-account commit serialization (see ``FaultConfiguration/namespaceLockMilliseconds``).
    let namespaceLock = NamespaceLock()
    let logger: Logger

    init(configuration: DevServerConfiguration, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        tokens = try TokenStore(storageRoot: configuration.storageDirectory, clock: configuration.clock)
        files = try FileStore(storageRoot: configuration.storageDirectory)
        web = try WebStore(storageRoot: configuration.storageDirectory)
        flickr = try FlickrStore(storageRoot: configuration.storageDirectory)
        gdrive = try GoogleDriveStore(storageRoot: configuration.storageDirectory, clock: configuration.clock)
        faults = FaultInjector(configuration.faults)
        for account in tokens.accounts {
            try files.ensureAccount(account.name, folder: account.folder)
        }
    }

    /// Creates the account (token registry and file index) if it does not exist yet.
    @discardableResult
    func ensureAccount(_ name: String) throws -> Account {
        let account = tokens.ensureAccount(name)
        try files.ensureAccount(account.name, folder: account.folder)
        return account
    }

    /// Mints an access token and counts it.
    func issueAccessToken(account: String, refreshToken: String?) -> String {
        stats.record { $0.accessTokensIssued += 1 }
        return tokens.issueAccessToken(account: account, refreshToken: refreshToken, lifetime: configuration.accessTokenLifetime)
    }

    /// `expires_in` as Dropbox reports it: whole seconds.
    var expiresIn: Int64 { Int64(configuration.accessTokenLifetime.rounded(.up)) }
}
