import FerryCore

/// What `ferry account add` was given for an account kind, by the kind's declared ``AccountInput``s: values and
/// flags as typed, secrets already read from their files or standard input.
public struct AccountInputs: Sendable {
    public var name: String
    public var provider: String
    public var maxConcurrent: Int?
    /// Values of `.value` inputs, and `"true"` for `.flag` inputs that were given, by input name.
    public var values: [String: String]
    /// Secrets of `.secretFile` inputs, by input name (`refresh-token`).
    public var secrets: [String: String]
    /// Check the credentials with the provider now.
    public var verify: Bool

    public init(
        name: String, provider: String, maxConcurrent: Int? = nil, values: [String: String] = [:],
        secrets: [String: String] = [:], verify: Bool = true
    ) {
        self.name = name
        self.provider = provider
        self.maxConcurrent = maxConcurrent
        self.values = values
        self.secrets = secrets
        self.verify = verify
    }

    /// What was given for `input`: its value, its secret, or `"true"` for a flag; `nil` when not given.
    public subscript(_ input: AccountInput) -> String? {
        input.form == .secretFile ? secrets[input.name] : values[input.name]
    }

    /// True when the flag `input` was given.
    public func isSet(_ input: AccountInput) -> Bool { self[input] != nil }

    /// The value of a base-URL input, checked: http(s), and no credentials in it (never echoed: it may hold
    /// them).
    public func url(_ input: AccountInput) throws(AccountSetupError) -> String? {
        guard let url = self[input] else { return nil }
        guard url.hasPrefix("https://") || url.hasPrefix("http://") else {
            throw AccountSetupError(.usage, "\(input.flag) must be an http(s) URL, for example http://127.0.0.1:8910")
        }
        if EndpointSyntax.hasUserInfo(url) {
            throw AccountSetupError(
                .usage, "\(input.flag) carries credentials (user:password@): remove them; account secrets go in their own flags and files, sealed")
        }
        return url
    }
}
