import FerryGoogleDrive
import FerryStore

extension AccountCredentials {
    /// The OAuth client secret of a Drive account (installed apps have one too).
    public var googleClientSecret: String? { secrets["client_secret"] }

    /// The account's Google hosts: one base URL for everything when set (the dev server), Google's own otherwise.
    public var googleDriveEndpoints: GoogleDriveEndpoints {
        apiURL.map(GoogleDriveEndpoints.single) ?? .production
    }
}
