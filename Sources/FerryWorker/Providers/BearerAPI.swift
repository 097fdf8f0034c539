import AsyncHTTPClient
import FerryStore
import Logging

/// A provider's web API reached with an account's OAuth bearer token, as ``BearerCaller`` calls it: the client for
/// an account's stored endpoints, the errors it throws, and the service's name for logs.
protocol BearerAPI: Sendable {
    associatedtype Client: Sendable
    associatedtype Failure: BearerCallFailure
    /// How logs name the service ("Google Drive").
    static var serviceName: String { get }
    static func client(_ credentials: AccountCredentials, httpClient: HTTPClient, logger: Logger) -> Client
}

/// What ``BearerCaller`` needs to know of a provider's error.
protocol BearerCallFailure: Error {
    /// The service refused the access token (HTTP 401): refresh it once and try again.
    var refusesToken: Bool { get }
    /// Worth a quick retry within the attempt (a 5xx, a dropped connection); never a rate limit, which defers the
    /// job instead.
    var isTransient: Bool { get }
    /// How the job treats the error once in-attempt retries are spent.
    func jobFailure(doing action: String) -> JobFailure
}
