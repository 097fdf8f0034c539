import FerryStore
import Foundation
import Logging
import Postgres
import ServiceLifecycle

/// Holds a worker's start until the database has the schema this build needs.
///
/// During a deployment the migration (a Kubernetes Job, `ferry-migrate.service`) may still run when new workers
/// start. Instead of exiting and being restarted in a loop, the worker says once what it waits for
/// ("waiting for schema 24 (found 14); run `ferry migrate`") and checks again with capped exponential backoff,
/// up to `bound`; then it gives up with a clear error. PostgreSQL being unreachable is waited for the same way.
/// A changed or unknown migration cannot be fixed by waiting and fails at once.
public struct SchemaGate: Sendable {
    let store: FerryStore
    let runner: MigrationRunner
    let expected: Int
    let bound: Duration
    let readiness: WorkerReadiness?
    let logger: Logger
    let firstDelay: Duration
    let maxDelay: Duration

    public init(
        store: FerryStore, migrations: [Migration], definitions: [Definition], expected: Int = FerryRelease.schemaVersion,
        bound: Duration,
        readiness: WorkerReadiness?, logger: Logger, firstDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(30)
    ) {
        self.store = store
        self.runner = MigrationRunner(client: store.client, migrations: migrations, definitions: definitions, logger: logger)
        self.expected = expected
        self.bound = bound
        self.readiness = readiness
        self.logger = logger
        self.firstDelay = firstDelay
        self.maxDelay = maxDelay
    }

    /// What stands in the way of starting.
    enum Obstacle: Equatable {
        case unreachable(String)
        case schema(found: Int)
        /// The newest migration is applied but an older one is not.
        case gap(String)
    }

    /// Returns true once every migration and definition of this build is applied (checksums included); false when a graceful
    /// shutdown arrived while waiting. Throws when `bound` passed first, or at once for a problem waiting cannot fix.
    public func wait() async throws -> Bool {
        let deadline = ContinuousClock.now + bound
        var delay = firstDelay
        var reported: Obstacle?
        while true {
            let obstacle: Obstacle
            let failure: any Error
            do {
                let found = try await store.appliedSchemaVersion()
                if found >= expected {
                    try await runner.verifyUpToDate()
                    if reported != nil { logger.notice("schema \(expected) found; starting") }
                    return true
                }
                obstacle = .schema(found: found)
                failure = FerryStoreError(
                    .notMigrated, "the database has schema \(found), this build needs \(expected) (waited \(bound))",
                    fix: "run `ferry migrate`, or give workers longer with --wait-for-schema")
            } catch let error where FerryStoreError.code(of: error) == .connectionLost {
                obstacle = .unreachable(FerryStoreError(classifying: error)?.message ?? "\(error)")
                failure = error
            } catch let error as FerryStoreError where error.code == .notMigrated {
                obstacle = .gap(error.message)
                failure = error
            }
            if obstacle != reported {
                reported = obstacle
                let message: Logger.Message =
                    switch obstacle {
                    case .schema(let found): "waiting for schema \(expected) (found \(found)); run `ferry migrate`"
                    case .gap(let missing): "waiting for schema \(expected) (\(missing)); run `ferry migrate`"
                    case .unreachable(let reason): "waiting for PostgreSQL: \(reason)"
                    }
                logger.warning(message, metadata: ["gives_up_in": "\(deadline - ContinuousClock.now)"])
                // Not libpq's reason: /ready answers anyone, and that text names the server and the login role.
                if case .unreachable = obstacle {
                    readiness?.waiting("waiting for PostgreSQL")
                } else {
                    readiness?.waiting("\(message)")
                }
            } else {
                logger.debug("still waiting for the schema", metadata: ["retry_in": "\(delay)"])
            }
            let now = ContinuousClock.now
            guard now < deadline else {
                // The error thrown is what the refusal says (`ferry worker` prints it once, with its fix); an error
                // logged here as well made one refusal read as two failures.
                logger.debug("gave up waiting", metadata: ["waited": "\(bound)"])
                throw failure
            }
            let pause = min(delay, deadline - now)
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: pause) }
            if Task.isShuttingDownGracefully || Task.isCancelled { return false }
            delay = min(delay * 2, maxDelay)
        }
    }
}
