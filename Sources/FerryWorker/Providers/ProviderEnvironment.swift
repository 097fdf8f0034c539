import AsyncHTTPClient

/// What a worker process gives providers to build their handlers.
public struct ProviderEnvironment: Sendable {
    public var httpClient: HTTPClient
    /// Credentials for account-based providers; `nil` in a worker without the secret key (it runs only the
    /// providers that need no account).
    public var tokens: AccountTokenProvider?
    /// Bytes per upload chunk or part, from `ferry worker --chunk-size` (each provider rounds it to what its
    /// protocol allows).
    public var chunkSize: Int
    /// Remote folders created once fleet-wide, for services whose paths are not unique.
    public var folders: RemoteFolderLedger
    /// The local folders listings may read (a worker's `--local-root`s). Default none: a process that lists local
    /// folders says which (the CLI, run by the user, lists what its user can read: ``LocalRoots/unconfined``).
    public var localRoots: LocalRoots
    /// Whether jobs may delete files at their destinations (a sync's deletions); `ferry worker --no-deletes` says no.
    public var allowsDeletes = true
    /// This process's shares of account budgets across the fleet (a worker's; the same one its `tokens` pace
    /// requests with). Nil elsewhere: the worker then makes its own.
    public var shares: AccountShares?
    /// Fleet-wide turns for writes a service serializes per account; without a store, per process only.
    public var turns = AccountTurns(store: nil)
    /// The environment variables providers read their tuning knobs from: the process's by default; an in-process
    /// test gives each worker its own, as each `ferry worker` has its own.
    public var variables = ProviderVariables()

    public init(
        httpClient: HTTPClient, tokens: AccountTokenProvider?, chunkSize: Int, folders: RemoteFolderLedger = RemoteFolderLedger(store: nil),
        localRoots: LocalRoots = .none
    ) {
        self.httpClient = httpClient
        self.tokens = tokens
        self.chunkSize = chunkSize
        self.folders = folders
        self.localRoots = localRoots
    }
}
