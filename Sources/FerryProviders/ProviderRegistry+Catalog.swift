import FerryCore

extension ProviderRegistry {
    /// The options a `kind` job takes from the provider of its remote side (for a copy, its destination; the
    /// source adds its own ``ProviderDescriptor/options(for:)`` of `.copy`), with those the registry declares for
    /// every provider of that kind. Enqueue validation and ``optionCatalog`` both read this list.
    public func declaredOptions(_ provider: any ProviderDescriptor, for kind: JobKind) -> [ProviderOption] {
        switch kind {
        // Every job writes a file somewhere, so every provider takes the policy for one already there.
        case .upload:
            provider.options(for: .upload)
                + [TreeUpload.option.declaration, ExistingFilePolicy.option.declaration, ListingFilter.option.declaration, SyncMirror.option.declaration]
        case .fetch: provider.options(for: .fetch) + [ExistingFilePolicy.option.declaration, ListingFilter.option.declaration]
        case .copy: provider.options(for: .upload) + [ListingFilter.option.declaration, ExistingFilePolicy.option.declaration, SyncMirror.option.declaration]
        }
    }

    /// Every option by scheme and role, for the database's check of `ferry.enqueue` (`ferry migrate` writes it).
    public var optionCatalog: ProviderOptionCatalog {
        var entries = [ProviderOptionCatalog.Entry]()
        for provider in providers {
            let takes = { (kind: JobKind) in provider.example(for: kind) != nil }
            var roles = [(ProviderOptionCatalog.Role, [ProviderOption])]()
            if takes(.upload) { roles.append((.upload, declaredOptions(provider, for: .upload))) }
            if takes(.fetch) { roles.append((.fetch, declaredOptions(provider, for: .fetch))) }
            if takes(.upload) && takes(.copy) { roles.append((.copy, declaredOptions(provider, for: .copy))) }
            if takes(.copy) { roles.append((.copySource, provider.options(for: .copy))) }
            for scheme in provider.schemes {
                for (role, options) in roles {
                    entries += options.map { .init(scheme: scheme, role: role, provider: provider.displayName, option: $0) }
                }
            }
        }
        return ProviderOptionCatalog(entries)
    }
}
