import FerryWorker
import ServiceLifecycle

/// The worker as a service that starts only once the schema is there: it waits at `gate` (the metrics endpoint,
/// a sibling service, answers `/health` meanwhile), then builds and runs the worker with `start`.
struct WorkerLaunch: Service, CustomStringConvertible {
    let gate: SchemaGate
    let start: @Sendable () async throws -> Void

    /// What ServiceLifecycle logs for this service (the default would print every migration's SQL).
    var description: String { "WorkerLaunch" }

    func run() async throws {
        // A graceful shutdown while waiting: nothing was started, so there is nothing to drain.
        guard try await gate.wait() else { return }
        try await start()
    }
}
