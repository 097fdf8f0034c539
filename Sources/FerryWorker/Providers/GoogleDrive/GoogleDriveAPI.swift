import AsyncHTTPClient
import FerryGoogleDrive
import FerryStore
import Logging

/// Makes Google Drive calls for one job's account (see ``BearerCaller``).
typealias GoogleDriveCaller = BearerCaller<GoogleDriveAPI>

/// Drive v3 as ``BearerCaller`` reaches it.
enum GoogleDriveAPI: BearerAPI {
    typealias Failure = GoogleDriveError
    static let serviceName = "Google Drive"

    static func client(_ credentials: AccountCredentials, httpClient: HTTPClient, logger: Logger) -> GoogleDriveClient {
        GoogleDriveClient(httpClient: httpClient, endpoints: credentials.googleDriveEndpoints, logger: logger)
    }
}
