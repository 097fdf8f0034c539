import AsyncHTTPClient
import FerryCore
import FerryStore
import Logging

/// S3 accounts hold an access key pair (and an optional session token), sealed together, plus the region,
/// endpoint and addressing style as settings. No OAuth link: usable as soon as they are added.
struct S3AccountKind: AccountKind {
    var linkedWithoutLogin: Bool { true }
    var usesStoredSecretsOnly: Bool { true }
    var addOptions: [String] {
        ["region", "endpoint-url", "path-style", "access-key-id-file", "secret-access-key-file", "session-token-file"]
    }

    func prepare(
        _ inputs: AccountInputs, httpClient: HTTPClient, logger: Logger
    ) async throws(AccountSetupError) -> (FerryStore.NewAccount, note: String) {
        guard let region = inputs.region, !region.isEmpty, region.utf8.allSatisfy({ EndpointSyntax.isAlphanumeric($0) || $0 == UInt8(ascii: "-") }) else {
            throw AccountSetupError(.usage, "--region is required for S3 (for example us-east-1; MinIO and R2 accept their own or auto)")
        }
        guard let accessKeyID = inputs.secrets["access-key-id"], let secret = inputs.secrets["secret-access-key"] else {
            throw AccountSetupError(.usage, "S3 needs --access-key-id-file and --secret-access-key-file (files, or - for one of them on standard input)")
        }
        if let url = inputs.endpointURL, !(url.hasPrefix("https://") || url.hasPrefix("http://")) {
            throw AccountSetupError(.usage, "--endpoint-url must be an http(s) URL, for example http://127.0.0.1:9000")
        }
        var keys: [String: JSONValue] = ["access_key_id": .string(accessKeyID), "secret_access_key": .string(secret)]
        if let token = inputs.secrets["session-token"] { keys["session_token"] = .string(token) }
        var account = FerryStore.NewAccount(
            name: inputs.name, provider: inputs.provider, appKey: nil, appSecret: JSONValue.object(keys).jsonText,
            refreshToken: nil, maxConcurrent: inputs.maxConcurrent)
        account.linkedWithoutLogin = true
        var settings: [String: JSONValue] = ["region": .string(region), "path_style": .bool(inputs.pathStyle)]
        if let url = inputs.endpointURL { settings["endpoint_url"] = .string(url) }
        account.settings = settings
        return (account, "added \(inputs.name) (s3, \(region))")
    }
}
