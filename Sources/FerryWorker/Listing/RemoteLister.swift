import Logging
import NIOCore

/// Listing capability of a provider (``ProviderHandlers/lister(environment:)``): lists a remote folder page by page
/// and reads a listed file's bytes. Shared code (`ferry ls`, `ferry check`, a sync) reaches every provider through
/// this seam, so a new service gets them by implementing it.
///
/// A lister honours ``RemoteListOptions/recursive``, and one that walks folder by folder reads no folder
/// ``RemoteListOptions/descends(into:depth:)`` refuses; filtering files and counting entries is ``RemoteListing``'s
/// work, for every provider alike. A lister stops when `page` throws (the bounds do so), and skips (with a notice)
/// entries it cannot name as a relative path.
public protocol RemoteLister: Sendable {
    /// Lists the folder `remote` names (an endpoint of this provider, such as `scheme:ACCOUNT:/folder/`; a trailing
    /// `/` is implied), calling `page` with each page of entries in the provider's order. Throws a `ValidationIssue`
    /// for a remote that does not parse, ``RemoteListingError`` `not_found` when no such folder exists, and the
    /// provider's failures as ``JobFailure``.
    func list(_ remote: String, options: RemoteListOptions, logger: Logger, page: ([RemoteEntry]) async throws -> Void) async throws
    /// Streams the bytes of a listed file (``RemoteEntry/reference``) to `body`, a piece at a time (bounded memory).
    func read(_ entry: RemoteEntry, logger: Logger, into body: (ByteBuffer) async throws -> Void) async throws
    /// True when reading costs no transfer (a local disk): a comparison may then hash the files to match the other
    /// side's digest. Default: false.
    var readsLocally: Bool { get }
}

extension RemoteLister {
    public var readsLocally: Bool { false }
}
