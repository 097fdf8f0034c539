import FerryOneDrive
import FerryStore

extension AccountCredentials {
    /// The OAuth client secret of a OneDrive account registered as a confidential client; desktop (public) clients
    /// have none.
    public var oneDriveClientSecret: String? { secrets["client_secret"] }

    /// The account's Microsoft hosts: one base URL for Graph (and, unless a login URL is set, the identity platform)
    /// when set (the dev server), Microsoft's own otherwise; the login URL (with its tenant) from `authorize_url`.
    public var oneDriveEndpoints: OneDriveEndpoints {
        OneDriveAccountKind.endpoints(apiURL: apiURL, loginURL: authorizeURL)
    }
}
