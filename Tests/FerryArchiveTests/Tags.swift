import Testing

extension Tag {
    /// Needs PostgreSQL (`FERRY_TEST_DATABASE_URL`, started by `make test`).
    @Tag static var postgres: Self
}
