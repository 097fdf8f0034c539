import FerryCore

/// The providers a Ferry process knows, keyed by URI scheme and by name. Enqueue validation (in apps through
/// `FerryClient`, in the CLI and in the worker for jobs enqueued from SQL), the account commands and the worker
/// all look providers up here; the worker finds each provider's handlers through its descriptor.
public struct ProviderRegistry: Sendable {
    /// Every provider, in the order they are listed in help and errors.
    public let providers: [any ProviderDescriptor]
    let byScheme: [String: any ProviderDescriptor]
    let byName: [String: any ProviderDescriptor]
    /// Every option name any provider declares.
    public let optionNames: Set<String>

    /// Ferry's providers. Adding one is a line here.
    public static let standard = ProviderRegistry([
        DropboxProvider(),
        FlickrProvider(),
        WebProvider(),
        LocalDirectoryProvider(),
        S3Provider(),
        GoogleDriveProvider(),
        OneDriveProvider(),
        InstagramProvider(),
    ])

    /// - Precondition: schemes and names are unique, and no option is named like a generic job field.
    public init(_ providers: [any ProviderDescriptor]) {
        self.providers = providers
        var byScheme = [String: any ProviderDescriptor]()
        var byName = [String: any ProviderDescriptor]()
        var optionNames: Set<String> = [ExistingFilePolicy.option.name, TreeUpload.option.name, ListingFilter.option.name, SyncMirror.option.name]
        for provider in providers {
            precondition(byName[provider.name] == nil, "two providers are named \(provider.name)")
            byName[provider.name] = provider
            for scheme in provider.schemes {
                precondition(byScheme[scheme] == nil, "two providers own the scheme \(scheme)")
                byScheme[scheme] = provider
            }
            for kind in JobKind.allCases {
                for option in provider.options(for: kind) {
                    precondition(!JobRequest.jsonFields.contains(option.name), "option \(option.name) shadows a job field")
                    optionNames.insert(option.name)
                }
            }
        }
        self.byScheme = byScheme
        self.byName = byName
        self.optionNames = optionNames
    }

    /// The provider whose accounts have this `provider` name.
    public func provider(named name: String) -> (any ProviderDescriptor)? { byName[name] }

    /// The provider of an endpoint's text, by its URI scheme.
    public func provider(for endpoint: String) -> (any ProviderDescriptor)? {
        EndpointSyntax.scheme(of: endpoint).flatMap { byScheme[$0] }
    }

    /// The URI schemes of providers whose paths ignore case (``ProviderDescriptor/pathsIgnoreCase``).
    public var caseFoldedSchemes: [String] {
        providers.filter(\.pathsIgnoreCase).flatMap(\.schemes)
    }

    /// How the remote side of `kind` jobs can be written, for error text.
    public func examples(for kind: JobKind) -> [String] {
        providers.compactMap { $0.example(for: kind) }
    }
}
