import Testing

/// The test tiers, one declaration for every test target.
extension Tag {
    /// In process, no PostgreSQL and no child processes: `make check` runs these (seconds).
    @Tag public static var fast: Self
    /// Needs PostgreSQL (`FERRY_TEST_DATABASE_URL`, started by `make test`).
    @Tag public static var postgres: Self
    /// Needs the moto S3 server (`FERRY_TEST_S3_URL`), a service `make test` starts as it starts PostgreSQL: the test
    /// itself starts no process.
    @Tag public static var s3: Self
    /// Starts `ferry` processes (`FERRY_BIN_DIR`).
    @Tag public static var process: Self
}
