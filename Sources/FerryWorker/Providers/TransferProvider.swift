import FerryCore
import FerryStore

/// A storage service Ferry moves files to or from, as one self-contained vertical (swift-jobs' `registerJob`,
/// River's typed `AddWorker`): its URI scheme, the options it takes, how a request becomes a job with typed
/// details, the kind of account it uses, and the handlers that run its jobs.
///
/// Adding a provider is a folder under `Providers/` with a type conforming to this protocol, plus one line in
/// ``ProviderRegistry/standard``. Nothing else in Ferry names a provider.
public protocol TransferProvider: Sendable {
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
    /// The kind of account the provider's jobs use, or `nil` when they use none.
    var accountKind: (any AccountKind)? { get }
    /// The handler of `kind` jobs, or `nil` when this process cannot run them (no secret key for accounts).
    func handler(for kind: JobKind, environment: ProviderEnvironment) -> (any JobHandler)?
}

extension TransferProvider {
    public func options(for kind: JobKind) -> [ProviderOption] { [] }
    public var accountKind: (any AccountKind)? { nil }
}
