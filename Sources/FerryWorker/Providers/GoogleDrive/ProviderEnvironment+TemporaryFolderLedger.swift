extension ProviderEnvironment {
    /// TEMPORARY stand-in for the seam's fleet-wide folder ledger (same signature; delete this file when it lands).
    /// Creates each remote folder exactly once: returns the recorded id; otherwise one caller runs `find` (an existing
    /// folder of that name in its parent) and then `create` when `find` answers nil; the others wait for the id.
    func folderID(
        scope: String, path: String, find: @Sendable () async throws -> String?, create: @Sendable () async throws -> String
    ) async throws -> String {
        try await TemporaryFolderLedger.shared.folderID(scope: scope, path: path, find: find, create: create)
    }
}
