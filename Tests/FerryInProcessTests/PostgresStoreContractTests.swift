import Foundation
import Testing

/// The same contract against `FerryStore` on a fresh database each; skipped without `FERRY_TEST_DATABASE_URL`.
@Suite(
    "store contract: PostgreSQL", .tags(.postgres),
    .enabled(
        if: ProcessInfo.processInfo.environment["FERRY_TEST_DATABASE_URL"].map { !$0.isEmpty } ?? false,
        "needs FERRY_TEST_DATABASE_URL (make test starts PostgreSQL)"))
struct PostgresStoreContractTests {
    @Test(arguments: StoreContract.all)
    func contract(_ rule: StoreContract) async throws {
        let fixture = try await PostgresStoreFixture.make()
        do {
            try await rule.check(fixture)
        } catch {
            await fixture.close()
            throw error
        }
        await fixture.close()
    }
}
