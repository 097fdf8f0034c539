import FerryDropbox
import FerryStore

extension AccountTokenProvider {
    /// A Dropbox client for the account's hosts.
    public func dropbox(_ credentials: AccountCredentials) -> DropboxClient {
        DropboxClient(httpClient: httpClient, endpoints: credentials.dropboxEndpoints, logger: logger)
    }
}
