import Foundation
import Testing

/// The same contract against `FerryStore` on a fresh database each, with prepared statements on (the default) and
/// off (as behind PgBouncer); skipped without `FERRY_TEST_DATABASE_URL`.
@Suite(
    "store contract: PostgreSQL", .tags(.postgres),
    .enabled(
        if: ProcessInfo.processInfo.environment["FERRY_TEST_DATABASE_URL"].map { !$0.isEmpty } ?? false,
        "needs FERRY_TEST_DATABASE_URL (make test starts PostgreSQL)"))
struct PostgresStoreContractTests {
    @Test(arguments: StoreContract.all, [true, false])
    func contract(_ rule: StoreContract, preparedStatements: Bool) async throws {
        let fixture = try await PostgresStoreFixture.make(preparedStatements: preparedStatements)
        do {
            try await rule.check(fixture)
        } catch {
            await fixture.close()
            throw error
        }
        await fixture.close()
    }
}
