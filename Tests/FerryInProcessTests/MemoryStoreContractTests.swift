import Testing

/// The store contract against `MemoryWorkerStore` (in process, milliseconds).
@Suite("store contract: memory", .tags(.fast))
struct MemoryStoreContractTests {
    @Test(arguments: StoreContract.all)
    func contract(_ rule: StoreContract) async throws {
        let fixture = MemoryStoreFixture()
        try await rule.check(fixture)
        await fixture.close()
    }
}
