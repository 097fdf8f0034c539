import AsyncHTTPClient
import FerryStore
import Logging

/// Flickr accounts hold an API key (sealed as the app secret) and need no OAuth link: public photos only.
struct FlickrAccountKind: AccountKind {
    var linkedWithoutLogin: Bool { true }
    var usesStoredSecretsOnly: Bool { true }
    var addOptions: [String] { ["api-key-file", "api-url", "content-url"] }

    func prepare(
        _ inputs: AccountInputs, httpClient: HTTPClient, logger: Logger
    ) async throws(AccountSetupError) -> (FerryStore.NewAccount, note: String) {
        guard let apiKey = inputs.secrets["api-key"] else {
            throw AccountSetupError(.usage, "--api-key-file is required for Flickr (the API key, from a file or -)")
        }
        // The API key is kept sealed like any other secret.
        var account = FerryStore.NewAccount(
            name: inputs.name, provider: inputs.provider, appKey: nil, appSecret: apiKey, refreshToken: nil,
            apiURL: inputs.apiURL, contentURL: inputs.contentURL, maxConcurrent: inputs.maxConcurrent)
        account.linkedWithoutLogin = true
        return (account, "added \(inputs.name) (flickr)")
    }
}
