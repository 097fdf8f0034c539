import FerryDropbox
import FerryStore

extension AccountCredentials {
    /// The account's Dropbox hosts: its own base URLs where set, Dropbox's real hosts otherwise.
    public var dropboxEndpoints: DropboxEndpoints {
        DropboxEndpoints(
            api: apiURL ?? DropboxEndpoints.production.api,
            content: contentURL ?? DropboxEndpoints.production.content,
            authorize: authorizeURL ?? DropboxEndpoints.production.authorize)
    }
}
