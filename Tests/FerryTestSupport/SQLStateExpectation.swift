import Postgres
import Testing

/// Expects `body` to fail with PostgreSQL error `code` (SQLSTATE): a test that only expects "some error" also
/// passes when the statement fails for an unrelated reason (a typo, a missing column).
public func expectSQLState(
    _ code: String, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async {
    do {
        try await body()
        Issue.record("expected SQLSTATE \(code), but it succeeded\(comment.map { ": \($0)" } ?? "")", sourceLocation: sourceLocation)
    } catch let error as PostgresError {
        #expect(error.sqlState?.code == code, "SQLSTATE \(error.sqlState?.code ?? "none"), expected \(code): \(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected SQLSTATE \(code), got \(error)", sourceLocation: sourceLocation)
    }
}
