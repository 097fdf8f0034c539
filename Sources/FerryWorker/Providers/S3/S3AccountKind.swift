import AsyncHTTPClient
import FerryCore
import FerryS3
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
        if let url = inputs.endpointURL, EndpointSyntax.hasUserInfo(url) {
            throw AccountSetupError(.usage, "--endpoint-url carries credentials (user:password@): remove them; S3 keys go in --access-key-id-file and --secret-access-key-file, sealed")
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
        guard inputs.verify else { return (account, "added \(inputs.name) (s3, \(region))") }
        // A signed ListBuckets proves the keys: AccessDenied still means they were accepted (keys scoped to one
        // bucket may not list buckets); InvalidAccessKeyId or SignatureDoesNotMatch mean they were not.
        let client: S3Client
        do {
            client = try S3AccountAccess.client(
                account: inputs.name, sealedKeys: account.appSecret, settings: settings, httpClient: httpClient, logger: logger)
        } catch {
            throw AccountSetupError(.usage, "--endpoint-url is not a usable URL")
        }
        do {
            _ = try await client.listBuckets()
        } catch {
            switch error.code {
            case .accessDenied:
                return (account, "added \(inputs.name) (s3, \(region)), keys accepted (they may not list buckets)")
            case .invalidAccessKeyId, .signatureDoesNotMatch, .expiredToken:
                throw AccountSetupError(.rejected, "the store refused the keys (\(error.s3Code ?? error.code.description)): check --access-key-id-file and --secret-access-key-file")
            default:
                throw AccountSetupError(
                    error.isRetryable ? .unreachable : .rejected,
                    "could not check the keys with the store (\(error)); check --endpoint-url and --region, retry, or add with --no-verify")
            }
        }
        return (account, "added \(inputs.name) (s3, \(region)), keys verified")
    }
}
