import Logging

/// Removal capability of a provider (``ProviderHandlers/remover(environment:)``): deletes one listed file. A sync's
/// deletions (``SyncHandler``) reach every provider through this seam, and only files a listing of this provider
/// named (``RemoteEntry/reference``) are ever removed.
public protocol RemoteRemover: Sendable {
    /// Deletes the file `entry` names. A file already gone is no failure (a resumed sync meets the ones it deleted
    /// before a crash). Throws the provider's failures as ``JobFailure``.
    func remove(_ entry: RemoteEntry, logger: Logger) async throws
}
