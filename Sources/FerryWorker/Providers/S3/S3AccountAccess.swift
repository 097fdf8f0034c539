import AsyncHTTPClient
import FerryCore
import FerryS3
import FerryStore
import Logging

/// Opens an S3 account's sealed key pair and settings into a client for its store.
struct S3AccountAccess: Sendable {
    let tokens: AccountTokenProvider
    let httpClient: HTTPClient

    /// A client signed with the account's keys, for its region and endpoint. An account that is not a usable S3
    /// account fails the job for good (it needs a person, not a retry).
    func client(for account: String, logger: Logger) async throws -> S3Client {
        let credentials: AccountCredentials
        do {
            credentials = try await tokens.plainCredentials(for: account)
        } catch let error as FerryStoreError where error.code == .credentials || error.code == .unknownAccount {
            throw JobFailure.permanent("account_unusable", error.description)
        } catch let error as FerryStoreError where error.code == .secretKeyMismatch {
            throw await tokens.keyMismatchFailure(account: account, error)
        }
        guard credentials.provider == "s3" else {
            throw JobFailure.permanent("account_unusable", "account \(account) is a \(credentials.provider) account, not s3")
        }
        return try Self.client(
            account: account, keys: credentials.s3Keys, settings: credentials.settings, httpClient: httpClient, logger: logger)
    }

    /// A client from the key pair (opened) and the settings of an account.
    static func client(
        account: String, keys: [String: String], settings: [String: JSONValue], httpClient: HTTPClient, logger: Logger
    ) throws -> S3Client {
        guard let accessKeyID = keys["access_key_id"], let secret = keys["secret_access_key"],
            let region = settings["region"]?.stringValue
        else {
            throw JobFailure.permanent("account_unusable", "account \(account) is not an S3 account with keys and a region")
        }
        var endpoint: S3Endpoint?
        if let url = settings["endpoint_url"]?.stringValue {
            do {
                endpoint = try S3Endpoint(url: url)
            } catch {
                throw JobFailure.permanent("account_unusable", "account \(account) has an unusable endpoint URL")
            }
        }
        let pathStyle = settings["path_style"] == .bool(true)
        return S3Client(
            httpClient: httpClient,
            configuration: S3Configuration(region: region, endpoint: endpoint, addressingStyle: pathStyle ? .path : nil),
            credentials: S3Credentials(accessKeyID: accessKeyID, secretAccessKey: secret, sessionToken: keys["session_token"]),
            logger: logger)
    }
}
