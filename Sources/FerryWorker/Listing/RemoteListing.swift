import FerryCore
import FerryProviders
import Logging

/// A listing of one remote folder through its provider's ``RemoteLister``, with what every provider shares: the
/// file filter and the bounds of ``RemoteListOptions``. The CLI's `ls`, `size` and `check` run through it, and so can a
/// worker (a sync): it takes the worker's ``ProviderEnvironment``.
public struct RemoteListing: Sendable {
    /// The folder as the user wrote it.
    public let remote: String
    /// The provider that lists it.
    public let provider: any ProviderDescriptor
    public let lister: any RemoteLister

    /// The listing of `remote`: an endpoint (`scheme:…`) of a provider that lists, or a local absolute path. Throws a
    /// `ValidationIssue` naming the forms to write for a remote no provider lists, and ``RemoteListingError``
    /// `not_listable` when the provider's accounts cannot be opened here (no secret key).
    public static func open(_ remote: String, registry: ProviderRegistry, environment: ProviderEnvironment) throws -> RemoteListing {
        let provider = try provider(of: remote, registry: registry)
        guard let lister = provider.lister(environment: environment) else {
            throw RemoteListingError(
                .notListable, "\(provider.displayName) accounts cannot be opened without the secret key",
                fix: "set FERRY_SECRET_KEY or FERRY_SECRET_KEY_FILE to the key the workers use")
        }
        return RemoteListing(remote: remote, provider: provider, lister: lister)
    }

    /// The provider that lists `remote`, once the remote parses as one of its folders (nothing opened yet): a
    /// command checks every remote before it asks for the secret key or the database.
    public static func provider(of remote: String, registry: ProviderRegistry) throws -> any ProviderHandlers {
        let listers = registry.providers.compactMap { $0 as? any ProviderHandlers }
        let examples = listers.compactMap(\.listingExample)
        let scheme = EndpointSyntax.scheme(of: remote) ?? (remote.hasPrefix("/") ? "file" : nil)
        guard let scheme, let provider = listers.first(where: { $0.schemes.contains(scheme) }), provider.listingExample != nil else {
            throw ValidationIssue(
                line: nil, field: "remote",
                problem: EndpointSyntax.scheme(of: remote).map { "no provider lists '\($0):' remotes" } ?? "'\(remote)' is not a remote or an absolute path",
                fix: "write one of: " + examples.joined(separator: ", "))
        }
        try provider.checkListingRemote(remote)
        return provider
    }

    /// Lists the folder: each page's entries that pass the filter (files by ``FileFilter/verdict(path:size:modified:)``,
    /// folders by ``FileFilter/descends(into:)``) go to `page`; entries past the bounds end the listing with
    /// ``RemoteListingError``. Returns what was listed in all, kept or not.
    @discardableResult
    public func run(options: RemoteListOptions, logger: Logger, page: ([RemoteEntry]) async throws -> Void) async throws -> Int {
        var listed = 0
        try await lister.list(remote, options: options, logger: logger) { entries in
            listed += entries.count
            guard listed <= options.maxEntries else {
                throw RemoteListingError(
                    .tooManyEntries, "\(remote) holds more than \(options.maxEntries) entries",
                    fix: "list a smaller folder, narrow it with --include/--exclude, or raise --max-entries")
            }
            if entries.contains(where: { $0.depth > options.maxDepth }) {
                throw RemoteListingError.tooDeep(options)
            }
            let kept = entries.filter { Self.passes($0, filter: options.filter) }
            if !kept.isEmpty { try await page(kept) }
        }
        return listed
    }

    /// Whether `entry` passes `filter`, and every folder above it too (a listing by key may hold files below an
    /// excluded folder that a walk would not have read).
    static func passes(_ entry: RemoteEntry, filter: FileFilter) -> Bool {
        guard !filter.isEmpty else { return true }
        var folder = ""
        for component in entry.path.split(separator: "/").dropLast() {
            folder += folder.isEmpty ? String(component) : "/" + component
            if !filter.descends(into: folder) { return false }
        }
        if entry.isFolder { return filter.descends(into: entry.path) }
        if case .skip = filter.verdict(path: entry.path, size: entry.size ?? 0, modified: entry.modified ?? .distantPast) { return false }
        return true
    }
}
