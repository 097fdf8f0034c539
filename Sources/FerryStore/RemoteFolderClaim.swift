/// The answer to a claim on creating a remote folder (``WorkerStore/claimRemoteFolder(scope:path:owner:staleAfter:)``).
public enum RemoteFolderClaim: Sendable, Equatable {
    /// The folder exists with this id: use it.
    case known(String)
    /// This caller holds the claim: look for the folder, create it when absent, record its id.
    case claimed
    /// Another worker holds a fresh claim: wait for its id and ask again.
    case busy
}
