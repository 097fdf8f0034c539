import AsyncHTTPClient
import FerryFlickr
import FerryStore
import Logging

/// Flickr accounts hold an API key (their secrets: `{"api_key"}`) and need no OAuth link: public photos only.
struct FlickrAccountKind: AccountKind {
    var linkedWithoutLogin: Bool { true }
    var usesStoredSecretsOnly: Bool { true }

    static let apiKey = AccountInput("api-key", .secretFile, help: "File holding the API key; - reads stdin. Required.")
    static let apiURL = AccountInput(
        "api-url", .value(valueName: "url"), help: "REST endpoint. Default: \(FlickrEndpoints.production.rest)")
    static let photoURL = AccountInput(
        "content-url", .value(valueName: "url"), help: "Photo base URL. Default: \(FlickrEndpoints.production.photos)")

    var inputs: [AccountInput] { [Self.apiKey, Self.apiURL, Self.photoURL] }

    func prepare(
        _ inputs: AccountInputs, httpClient: HTTPClient, logger: Logger
    ) async throws(AccountSetupError) -> (NewAccount, note: String) {
        guard let apiKey = inputs[Self.apiKey] else {
            throw AccountSetupError(.usage, "\(Self.apiKey.flag) is required for Flickr (the API key, from a file or -)")
        }
        // The API key is kept sealed like any other secret.
        var account = NewAccount(
            name: inputs.name, provider: inputs.provider, appKey: nil, secrets: ["api_key": apiKey], refreshToken: nil,
            apiURL: try inputs.url(Self.apiURL), contentURL: try inputs.url(Self.photoURL), maxConcurrent: inputs.maxConcurrent)
        account.linkedWithoutLogin = true
        guard inputs.verify else { return (account, "added \(inputs.name) (flickr)") }
        // flickr.test.echo proves the endpoint is Flickr's REST API and that it accepts the key.
        let endpoints = FlickrEndpoints(
            rest: account.apiURL ?? FlickrEndpoints.production.rest, photos: account.contentURL ?? FlickrEndpoints.production.photos)
        do {
            try await FlickrClient(httpClient: httpClient, endpoints: endpoints, logger: logger, requestTimeout: .seconds(20))
                .echo(apiKey: apiKey)
        } catch {
            switch error.code {
            case .invalidAPIKey:
                throw AccountSetupError(.rejected, "Flickr refused the API key (\(error.message)): check --api-key-file")
            case .transport, .timeout, .serviceUnavailable, .serverError, .rateLimited:
                throw AccountSetupError(
                    .unreachable, "could not reach Flickr to check the API key (\(error.code.rawValue)); check --api-url, retry, or add with --no-verify")
            default:
                throw AccountSetupError(
                    .rejected, "\(endpoints.rest) did not answer as Flickr's REST API (\(error.code.rawValue)): check --api-url, or add with --no-verify")
            }
        }
        return (account, "added \(inputs.name) (flickr), API key verified")
    }

    /// Before schema 30 the one secret was the API key.
    func secrets(fromLegacy secret: String) -> [String: String]? { ["api_key": secret] }
}
