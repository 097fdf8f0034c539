import AsyncHTTPClient
import FerryOneDrive
import FerryStore
import Logging

/// Makes OneDrive calls for one job's account (see ``BearerCaller``).
typealias OneDriveCaller = BearerCaller<OneDriveAPI>

/// Microsoft Graph's drive routes as ``BearerCaller`` reaches them.
enum OneDriveAPI: BearerAPI {
    typealias Failure = OneDriveError
    static let serviceName = "OneDrive"

    static func client(_ credentials: AccountCredentials, httpClient: HTTPClient, logger: Logger) -> OneDriveClient {
        OneDriveClient(httpClient: httpClient, endpoints: credentials.oneDriveEndpoints, logger: logger)
    }
}
