import FerryCore
import FerryProviders
import FerryStore

/// Which handler runs a claimed job: the one its provider registered for the job's kind, found by the URI
/// scheme of the job's remote side (an upload's destination, a fetch's source).
public struct JobHandlers: Sendable {
    struct Key: Hashable {
        var kind: JobKind
        var scheme: String
    }

    let table: [Key: any JobHandler]
    let catchAll: (any JobHandler)?
    /// Syncs (a tree upload or folder copy with deletions), whatever providers they name.
    let sync: SyncHandler?
    /// The providers, which settle jobs enqueued from SQL (`nil` with a catch-all handler: nothing to settle).
    let registry: ProviderRegistry?
    /// The providers whose labels the worker's metrics use (with a catch-all handler too: a rehearsal reports by
    /// provider as a real worker does).
    let providers: ProviderRegistry?
    /// The environment's fleet shares of account budgets, which the worker's transfers spend from too.
    let shares: AccountShares?

    /// The handlers of every provider in `registry` this process can run.
    public init(registry: ProviderRegistry, environment: ProviderEnvironment) {
        var table = [Key: any JobHandler]()
        let readers = CopyReaders(registry: registry, environment: environment)
        for provider in registry.providers {
            guard let plugin = provider as? any ProviderHandlers else { continue }
            for kind in JobKind.allCases {
                // Copies are made from the capabilities: any provider that reads, to any provider that writes.
                let copies = kind == .copy ? plugin.copyWriter(environment: environment).map { CopyHandler(readers: readers, writer: $0) } : nil
                guard let handler = copies ?? plugin.handler(for: kind, environment: environment) else { continue }
                for scheme in provider.schemes { table[Key(kind: kind, scheme: scheme)] = handler }
            }
        }
        self.table = table
        catchAll = nil
        self.registry = registry
        providers = registry
        shares = environment.shares
        sync = SyncHandler(registry: registry, environment: environment)
    }

    /// One handler for every job (benchmarks and tests script the work); `providers` name the metrics' labels.
    public init(catchAll: any JobHandler, providers: ProviderRegistry? = nil) {
        table = [:]
        self.catchAll = catchAll
        registry = nil
        self.providers = providers
        shares = nil
        sync = nil
    }

    /// The handler for `job`, or `nil` when no provider of this process takes it.
    public func handler(for job: ClaimedJob) -> (any JobHandler)? {
        if let catchAll { return catchAll }
        // A sync copies through a child job and deletes through the providers' capabilities.
        if let sync, job.spec.contains("\"\(SyncMirror.specKey)\""), case .object? = (try? JSONValue.parse(job.spec))?[SyncMirror.specKey] {
            return sync
        }
        // A tree upload walks its folder here whatever the destination's provider; its children go to that provider.
        if job.kind == .upload, job.spec.contains("\"\(TreeUpload.specKey)\""),
            (try? JSONValue.parse(job.spec))?[TreeUpload.specKey] == .bool(true)
        {
            return TreeUploadHandler()
        }
        // Uploads and copies by the provider they write to; fetches by the one they read from.
        let remote = job.kind == .fetch ? job.source : job.destination
        guard let scheme = EndpointSyntax.scheme(of: remote) else { return nil }
        return table[Key(kind: job.kind, scheme: scheme)]
    }
}
