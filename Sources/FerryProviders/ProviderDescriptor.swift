import FerryCore

/// What Ferry knows about a storage service without talking to it: its URI schemes, the options its jobs
/// take, and how a request becomes a job with typed details. Pure (no I/O), so an app that only enqueues
/// validates jobs without linking the worker or any provider's HTTP client.
///
/// The work itself is done by handlers in `FerryWorker`, which finds them through the descriptor: a provider's
/// worker side conforms its descriptor to `ProviderHandlers` there. Adding a provider is a folder with a type
/// conforming to this protocol, plus one line in ``ProviderRegistry/standard``.
public protocol ProviderDescriptor: Sendable {
    /// The registry name, also the `provider` of this provider's accounts (`dropbox`).
    var name: String { get }
    /// The name in messages (`Dropbox`).
    var displayName: String { get }
    /// The URI schemes this provider owns, lowercase, without the colon (`dropbox`; `http` and `https`).
    var schemes: [String] { get }
    /// How the remote side of a `kind` job is written (`dropbox:ACCOUNT:/path/`), or `nil` when the provider
    /// does not take that kind of job.
    func example(for kind: JobKind) -> String?
    /// The options a `kind` job of this provider takes (checked before ``resolve(_:)`` is called).
    func options(for kind: JobKind) -> [ProviderOption]
    /// Checks the remote side and the options of one job and returns its endpoints, account and typed details.
    func resolve(_ request: EndpointRequest) throws(ValidationIssue) -> ResolvedEndpoint
    /// The `provider` label of its jobs' metrics (bounded: one per provider). Default: `name`.
    var metricLabel: String { get }
    /// Whether its paths compare case-insensitively (two names differing in case are one file), so duplicate
    /// destinations and copies into their own source are found as the service sees them. Default: false.
    var pathsIgnoreCase: Bool { get }
    /// What to do about its failures, by error code (`code` of the job's last error): the dashboard shows the
    /// text beside a group of failures. Say the command or option that fixes it.
    var failureFixes: [String: String] { get }
}

extension ProviderDescriptor {
    public func options(for kind: JobKind) -> [ProviderOption] { [] }
    public var metricLabel: String { name }
    public var pathsIgnoreCase: Bool { false }
    public var failureFixes: [String: String] { [:] }
}
