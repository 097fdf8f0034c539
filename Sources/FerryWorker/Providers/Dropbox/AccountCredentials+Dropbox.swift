import FerryDropbox
import FerryStore

extension AccountCredentials {
    /// The app secret (OAuth `client_secret`), when the app has one.
    public var dropboxAppSecret: String? { secrets["app_secret"] ?? legacySecret }

    /// The account's Dropbox hosts: its own base URLs where set, Dropbox's real hosts otherwise.
    public var dropboxEndpoints: DropboxEndpoints {
        DropboxEndpoints(
            api: apiURL ?? DropboxEndpoints.production.api,
            content: contentURL ?? DropboxEndpoints.production.content,
            authorize: authorizeURL ?? DropboxEndpoints.production.authorize)
    }
}
