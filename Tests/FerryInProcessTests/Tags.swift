import Testing

extension Tag {
    /// In process, no PostgreSQL and no child processes: `make check` runs these (seconds).
    @Tag static var fast: Self
    /// Needs PostgreSQL (`FERRY_TEST_DATABASE_URL`): `make test` runs these.
    @Tag static var postgres: Self
}
