import FerryProviders

extension ProviderRegistry {
    /// The account kind of the provider named `name`, or `nil` when it has no accounts (or no worker side).
    public func accountKind(of name: String) -> (any AccountKind)? {
        (provider(named: name) as? any ProviderHandlers)?.accountKind
    }

    /// Names of the providers that have accounts (for `ferry account add --provider`).
    public var accountProviderNames: [String] {
        providers.filter { ($0 as? any ProviderHandlers)?.accountKind != nil }.map(\.name)
    }
}
