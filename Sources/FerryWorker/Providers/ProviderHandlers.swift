import FerryCore
import FerryProviders

/// A provider's worker side: the handlers that run its jobs and the kind of account they use. A provider's
/// descriptor (in `FerryProviders`, pure) conforms to this protocol in the provider's folder here, so the
/// worker finds everything through ``ProviderRegistry`` and no second list of providers exists.
public protocol ProviderHandlers: ProviderDescriptor {
    /// The kind of account the provider's jobs use, or `nil` when they use none.
    var accountKind: (any AccountKind)? { get }
    /// The handler of `kind` jobs, or `nil` when this process cannot run them (no secret key for accounts).
    func handler(for kind: JobKind, environment: ProviderEnvironment) -> (any JobHandler)?
}

extension ProviderHandlers {
    public var accountKind: (any AccountKind)? { nil }
}
