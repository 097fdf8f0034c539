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

    static let region = AccountInput(
        "region", .value(valueName: "region"), help: "The region: us-east-1 …; MinIO and R2 take theirs or auto. Required.")
    static let endpointURL = AccountInput(
        "endpoint-url", .value(valueName: "url"), help: "Endpoint of an S3-compatible store (MinIO, R2 …). Default: AWS.")
    static let pathStyle = AccountInput(
        "path-style", .flag, help: "Buckets in the path (http://host/bucket/key): MinIO and moto.")
    static let accessKeyID = AccountInput("access-key-id", .secretFile, help: "File holding the access key id; - reads stdin.")
    static let secretAccessKey = AccountInput(
        "secret-access-key", .secretFile, help: "File holding the secret access key; - reads stdin.")
    static let sessionToken = AccountInput("session-token", .secretFile, help: "File holding a session token (temporary credentials).")

    var inputs: [AccountInput] {
        [Self.region, Self.endpointURL, Self.pathStyle, Self.accessKeyID, Self.secretAccessKey, Self.sessionToken]
    }

    func prepare(
        _ inputs: AccountInputs, httpClient: HTTPClient, logger: Logger
    ) async throws(AccountSetupError) -> (NewAccount, note: String) {
        guard let region = inputs[Self.region], !region.isEmpty, region.utf8.allSatisfy({ EndpointSyntax.isAlphanumeric($0) || $0 == UInt8(ascii: "-") }) else {
            throw AccountSetupError(.usage, "\(Self.region.flag) is required for S3 (for example us-east-1; MinIO and R2 accept their own or auto)")
        }
        guard let accessKeyID = inputs[Self.accessKeyID], let secret = inputs[Self.secretAccessKey] else {
            throw AccountSetupError(
                .usage, "S3 needs \(Self.accessKeyID.flag) and \(Self.secretAccessKey.flag) (files, or - for one of them on standard input)")
        }
        let endpointURL = inputs[Self.endpointURL]
        if let url = endpointURL, !(url.hasPrefix("https://") || url.hasPrefix("http://")) {
            throw AccountSetupError(.usage, "\(Self.endpointURL.flag) must be an http(s) URL, for example http://127.0.0.1:9000")
        }
        if let url = endpointURL, EndpointSyntax.hasUserInfo(url) {
            throw AccountSetupError(
                .usage,
                "\(Self.endpointURL.flag) carries credentials (user:password@): remove them; S3 keys go in \(Self.accessKeyID.flag) and \(Self.secretAccessKey.flag), sealed")
        }
        var keys = ["access_key_id": accessKeyID, "secret_access_key": secret]
        if let token = inputs[Self.sessionToken] { keys["session_token"] = token }
        var account = NewAccount(
            name: inputs.name, provider: inputs.provider, appKey: nil, secrets: keys, refreshToken: nil,
            maxConcurrent: inputs.maxConcurrent)
        account.linkedWithoutLogin = true
        var settings: [String: JSONValue] = ["region": .string(region), "path_style": .bool(inputs.isSet(Self.pathStyle))]
        if let url = endpointURL { settings["endpoint_url"] = .string(url) }
        account.settings = settings
        guard inputs.verify else { return (account, "added \(inputs.name) (s3, \(region))") }
        // A signed ListBuckets proves the keys: AccessDenied still means they were accepted (keys scoped to one
        // bucket may not list buckets); InvalidAccessKeyId or SignatureDoesNotMatch mean they were not.
        let client: S3Client
        do {
            client = try S3AccountAccess.client(
                account: inputs.name, keys: keys, settings: settings, httpClient: httpClient, logger: logger)
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

    /// Before schema 30 the key pair was sealed as JSON text in the one secret.
    func secrets(fromLegacy secret: String) -> [String: String]? { Self.keys(fromLegacy: secret) }

    static func keys(fromLegacy secret: String) -> [String: String]? {
        guard let object = (try? JSONValue.parse(secret))?.objectValue else { return nil }
        return object.compactMapValues(\.stringValue)
    }
}
