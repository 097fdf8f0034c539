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
    /// Copy capability, read side: how copies open this provider's files and list its folders, whatever provider
    /// they write to; `nil` when it cannot be a copy source (or this process cannot read it).
    func copyReader(environment: ProviderEnvironment) -> (any CopySourceReader)?
    /// Copy capability, write side: how copies from any readable provider are written here; `nil` when it takes
    /// no copies. With one, the worker runs this provider's `copy` jobs itself (no `handler(for: .copy)` needed).
    func copyWriter(environment: ProviderEnvironment) -> (any CopyWriter)?
    /// Listing capability: how `ferry ls`, `ferry check` and syncs list this provider's folders and read its files;
    /// `nil` when it has no folders to list (or this process cannot open its accounts).
    func lister(environment: ProviderEnvironment) -> (any RemoteLister)?
    /// Removal capability: how a sync deletes the files of this provider a listing named (``RemoteRemover``); `nil`
    /// when nothing of it may be deleted (a sync to it is then refused by the worker).
    func remover(environment: ProviderEnvironment) -> (any RemoteRemover)?
    /// How a folder it lists is written (`scheme:ACCOUNT:/folder/`), for help and errors; `nil` when it lists none.
    var listingExample: String? { get }
    /// Refuses (with a `ValidationIssue`) a remote that does not parse as a folder of this provider, before anything
    /// is opened for it (the secret key, the database). Default: nothing to check here (the lister checks).
    func checkListingRemote(_ remote: String) throws
}

extension ProviderHandlers {
    public var accountKind: (any AccountKind)? { nil }
    public func copyReader(environment: ProviderEnvironment) -> (any CopySourceReader)? { nil }
    public func copyWriter(environment: ProviderEnvironment) -> (any CopyWriter)? { nil }
    public func lister(environment: ProviderEnvironment) -> (any RemoteLister)? { nil }
    public func remover(environment: ProviderEnvironment) -> (any RemoteRemover)? { nil }
    public var listingExample: String? { nil }
    public func checkListingRemote(_ remote: String) throws {}
}
