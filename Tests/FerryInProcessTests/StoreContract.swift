import Testing

/// One rule both `WorkerStore`s must keep, run against each by its own suite so the memory store cannot drift
/// from PostgreSQL.
struct StoreContract: Sendable, CustomTestStringConvertible {
    let name: String
    let check: @Sendable (any StoreFixture) async throws -> Void

    var testDescription: String { name }
}
