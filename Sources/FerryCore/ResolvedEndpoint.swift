/// A provider's answer for one job: the canonical endpoints, the account it uses and its typed details.
public struct ResolvedEndpoint: Sendable {
    /// Canonical source (uploads: unchanged local path).
    public var source: String
    /// Canonical destination (uploads into a folder: including the file name; fetches: the local target).
    public var destination: String
    /// The account the job uses, when the endpoint names one.
    public var account: String?
    /// The provider whose account the job needs (checked at enqueue against the account's provider).
    public var accountProvider: String?
    /// True when a job without an account uses the only account of `accountProvider` (Flickr's API key).
    public var usesOnlyAccount: Bool
    /// True when the job lists and fans out children: it gets a batch named after it when none is given.
    public var fansOut: Bool
    /// The provider's typed details, encoded (the `spec` the handler decodes).
    public var details: [String: JSONValue]
    /// A copy's second account, the one its source is read with (the job's `account` is the destination's), and
    /// that account's provider: both checked at enqueue like `account`.
    public var sourceAccount: String?
    public var sourceAccountProvider: String?

    public init(
        source: String, destination: String, account: String? = nil, accountProvider: String? = nil,
        usesOnlyAccount: Bool = false, fansOut: Bool = false, details: [String: JSONValue] = [:]
    ) {
        self.source = source
        self.destination = destination
        self.account = account
        self.accountProvider = accountProvider
        self.usesOnlyAccount = usesOnlyAccount
        self.fansOut = fansOut
        self.details = details
    }

    /// Encodes a provider's `Codable` details into the job's spec object.
    public init(
        source: String, destination: String, account: String? = nil, accountProvider: String? = nil,
        usesOnlyAccount: Bool = false, fansOut: Bool = false, typedDetails: some Encodable
    ) {
        self.init(
            source: source, destination: destination, account: account, accountProvider: accountProvider,
            usesOnlyAccount: usesOnlyAccount, fansOut: fansOut,
            details: (try? JSONValue(encoding: typedDetails))?.objectValue ?? [:])
    }
}
