import FerryCore

/// The Drive emulation from Swift (tests, the demo): the same as its `/__dev/gdrive/` control routes.
extension DevServer {
    /// Creates (or reuses) the Drive account and returns a new refresh token for it; the OAuth client is the server's
    /// app key and app secret.
    public func issueGoogleDriveRefreshToken(account: String) -> String {
        backend.gdrive.ensureAccount(account)
        return backend.gdrive.issueRefreshToken(account: account)
    }

    /// Creates (or reuses) the Drive account and returns an access token for it.
    public func issueGoogleDriveAccessToken(account: String) -> String {
        backend.gdrive.ensureAccount(account)
        return backend.gdrive.issueAccessToken(account: account, lifetime: min(3599, configuration.accessTokenLifetime))
    }

    /// Every item of the account, each a Drive file resource with its `path` from the root (`/Backup/a.jpg`).
    public func googleDriveItems(account: String) -> [JSONValue] {
        DevServerResponder(backend: backend).googleItemsWithPaths(account)
    }

    /// Counters of the Drive emulation.
    public func googleDriveStats() -> GoogleDriveStats { backend.gdrive.stats() }

    /// Makes every resumable session (of `account`, when given) expire now; returns how many.
    @discardableResult
    public func expireGoogleDriveSessions(account: String? = nil) -> Int {
        backend.gdrive.expireSessions(account: account)
    }

    /// Revokes a refresh token: its next use is `invalid_grant`.
    public func revokeGoogleDriveRefreshToken(_ token: String) {
        backend.gdrive.revoke(refreshToken: token)
    }

    /// Where the bytes of a Drive file's head revision are on disk (`nil` for folders and unknown ids).
    public func googleDriveFilePath(account: String, id: String) -> String? {
        backend.gdrive.item(account, id)?.content.map { backend.gdrive.blobPath($0.revision) }
    }
}
