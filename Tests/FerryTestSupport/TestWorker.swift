/// `ferry worker` processes as the end-to-end tests start them: a 0.3 s heartbeat, rescue after 8 s and a 0.5 s
/// poll, so claims, crashes and rescues show within seconds. (With 4 s the lease was 2.7 s: a worker or a PostgreSQL
/// stalled that long on a loaded 2-core machine lapsed it, and the worker put its own jobs back, up to poison.)
public enum TestWorker {
    /// Starts a worker named `name`, with `extra` arguments after the test timings.
    public static func start(
        _ db: TestDatabase, name: String, _ extra: [String] = [], environment: [String: String] = [:], logLevel: String = "info"
    ) throws -> BackgroundProcess {
        try BackgroundProcess(
            ferry: ["worker", "--name", name, "--heartbeat-interval", "0.3", "--rescue-after", "8", "--poll-interval", "0.5",
                    "--log-level", logLevel] + extra,
            databaseURL: db.url, environment: environment)
    }

    /// A worker for transfers: it reads the test accounts' secrets (`DropboxAccounts.environment`, under
    /// `environment`) and retries after 0.2 s, so an injected fault costs a test little time.
    public static func transfers(
        _ db: TestDatabase, name: String, _ extra: [String] = [], environment: [String: String] = [:]
    ) throws -> BackgroundProcess {
        try start(db, name: name, ["--retry-base", "0.2"] + extra, environment: DropboxAccounts.environment.merging(environment) { $1 })
    }
}
