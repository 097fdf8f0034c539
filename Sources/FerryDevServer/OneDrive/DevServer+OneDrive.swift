import FerryCore

/// The OneDrive emulation from Swift (tests, the demo): the same as its `/__dev/onedrive/` control routes.
extension DevServer {
    private var oneDriveStore: OneDriveStore { OneDriveStore.of(backend) }

    /// Creates (or reuses) the account and returns a new refresh token for it; the OAuth client id is the server's app key.
    public func issueOneDriveRefreshToken(account: String) -> String {
        oneDriveStore.ensureAccount(account)
        return oneDriveStore.issueRefreshToken(account: account)
    }

    /// Stores `bytes` at `path` (`/Photos/a.jpg`), folders made on the way; answers the item.
    @discardableResult
    public func putOneDriveFile(account: String, path: String, bytes: [UInt8]) throws -> JSONValue {
        oneDriveStore.ensureAccount(account)
        let (item, _) = try oneDriveStore.write(
            account, path: path.split(separator: "/").map(String.init), bytes: bytes, conflict: "replace", clientModified: nil)
        return item.json(parentPath: oneDriveStore.parentPath(account, item))
    }

    /// Every item of the account with its `path`.
    public func oneDriveItems(account: String) -> [JSONValue] { oneDriveStore.itemsWithPaths(account) }

    /// The bytes of the file at `path`; `nil` when there is none.
    public func oneDriveFile(account: String, path: String) -> [UInt8]? {
        oneDriveStore.item(account, path: path.split(separator: "/").map(String.init)).flatMap { $0.isFolder ? nil : $0.content }
    }

    public func oneDriveStats() -> OneDriveDevStats { oneDriveStore.state.withLock { $0.stats } }

    @discardableResult
    public func expireOneDriveSessions(account: String? = nil) -> Int { oneDriveStore.expireSessions(account: account) }

    public func revokeOneDriveRefreshToken(_ token: String) { oneDriveStore.revoke(refreshToken: token) }

    /// Revokes every refresh token of `account`, as a user removing the app's access does.
    public func revokeOneDriveRefreshTokens(account: String) { oneDriveStore.revokeRefreshTokens(account: account) }

    /// Throttles the next `count` Graph calls with `status` (429 or 503) and `Retry-After: retryAfter`.
    public func throttleOneDrive(count: Int, status: Int = 429, retryAfter: Int = 1) {
        oneDriveStore.state.withLock { state in
            state.throttleNext = count
            state.throttleStatus = status
            state.throttleRetryAfter = retryAfter
        }
    }

    /// Children per page when a client asks for no `$top`.
    public func setOneDrivePageSize(_ size: Int) { oneDriveStore.state.withLock { $0.defaultPageSize = max(1, size) } }
}
