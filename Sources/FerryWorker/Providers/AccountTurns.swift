import FerryStore

/// Turns across the fleet for the writes a service serializes per account (Dropbox takes a namespace lock per
/// commit and answers concurrent commits with `too_many_write_operations`): a provider runs such a write inside
/// ``exclusive(_:_:)`` and no other process of the fleet runs one for the same scope meanwhile, so the service never
/// sees Ferry contend with itself. Without a store (tests, the CLI) the turn is the caller's alone.
public struct AccountTurns: Sendable {
    let store: FerryStore?

    public init(store: FerryStore?) {
        self.store = store
    }

    /// Runs `body` while this process holds `scope`'s turn (name the provider and the account in it).
    public func exclusive<T: Sendable>(_ scope: String, _ body: () async throws -> T) async throws -> T {
        guard let store else { return try await body() }
        return try await store.withTurn(scope, body)
    }
}
