import FerryCore
import FerryProviders
import FerryStore
import Foundation
import Logging
import Postgres
import Prometheus
import ServiceLifecycle

/// Fires due schedules (`ferry schedule add`). Every worker runs one; they coordinate only through PostgreSQL:
/// each firing is one transaction under a per-schedule lock that workers only try, so a tick enqueues exactly one
/// job however many workers race for it, and a worker that was down catches up once.
///
/// It sleeps until the earliest next tick, at most `interval` (so schedules added meanwhile are seen within it).
/// On graceful shutdown it finishes the firing under way and stops.
public final class Scheduler: Service, Sendable {
    let store: FerryStore
    let workerName: String
    let interval: Duration
    let logger: Logger
    let wakeup = WakeupSignal()
    let registry: ProviderRegistry
    /// The folders a template's local paths must lie in: checked before the path is looked at.
    let localRoots: LocalRoots
    let enqueued: Counter
    let failed: Counter
    let skipped: Counter
    let missed: Counter

    static let ticks = MetricSpec(
        base: "ferry_schedule_ticks", unit: "total",
        help: "Schedule ticks this worker fired, by outcome: enqueued (one job), error (the job no longer validates) or skipped (the previous run was still going).")
    static let missedTicks = MetricSpec(
        base: "ferry_schedule_missed_ticks", unit: "total",
        help: "Schedule ticks nobody fired in time (no worker ran), skipped when this worker caught up once.")

    /// - Parameter metricsRegistry: where the scheduler's counters go (the worker's registry, served by `MetricsEndpoint`).
    public init(
        store: FerryStore, workerName: String, interval: Duration = .seconds(5), registry: ProviderRegistry,
        localRoots: LocalRoots = .unconfined, metricsRegistry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        logger: Logger
    ) {
        self.store = store
        self.localRoots = localRoots
        self.workerName = workerName
        self.interval = interval
        self.registry = registry
        enqueued = metricsRegistry.makeCounter(descriptor: Self.ticks.descriptor, labels: [("outcome", "enqueued")])
        failed = metricsRegistry.makeCounter(descriptor: Self.ticks.descriptor, labels: [("outcome", "error")])
        skipped = metricsRegistry.makeCounter(descriptor: Self.ticks.descriptor, labels: [("outcome", "skipped")])
        missed = metricsRegistry.makeCounter(descriptor: Self.missedTicks.descriptor)
        var logger = logger
        logger[metadataKey: "worker"] = "\(workerName)"
        self.logger = logger
    }

    /// Looks at the schedules again now (a run was requested: `ferry schedule run`), rather than at the end of
    /// the current wait.
    public func wake() {
        wakeup.notify()
    }

    public func run() async throws {
        await withGracefulShutdownHandler {
            await self.loop()
        } onGracefulShutdown: {
            self.wakeup.notify()
        }
    }

    func loop() async {
        let batch = 32
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            var pause = interval
            do {
                let (upcoming, now) = try await store.schedules.upcoming(limit: batch)
                var due = 0
                var fired = 0
                var refused = false
                for (name, next) in upcoming where next <= now {
                    if Task.isShuttingDownGracefully || Task.isCancelled { return }
                    due += 1
                    do {
                        if try await fire(name) { fired += 1 }
                    } catch where FerryStoreError(classifying: error)?.refusesWrites == true {
                        // Read-only or out of disk: the worker says so once; look again at the usual pace, not in 100 ms.
                        refused = true
                        break
                    } catch {
                        // One schedule's failure (the database refused its job, say) must not hold up the others.
                        logger.warning("firing a schedule failed; retrying", metadata: ["schedule": "\(name)", "error": "\(error)"])
                    }
                }
                if refused {
                    pause = interval
                } else if fired > 0 {
                    pause = .zero  // read the new next ticks at once: the next one may be near
                } else if due > 0 {
                    pause = min(interval, .milliseconds(100))  // another worker holds them: look again shortly
                } else if let later = upcoming.first {
                    pause = min(interval, .milliseconds(Int64(later.1.timeIntervalSince(now) * 1000) + 5))
                }
            } catch {
                logger.warning("reading due schedules failed; retrying", metadata: ["error": "\(error)"])
            }
            if pause > .zero { await wakeup.wait(timeout: pause) }
        }
    }

    /// An upload template's folder checked against `roots` before the scheduler looks at it (a fetch's target is
    /// not looked at here: the claim checks it).
    static func checkLocalPath(of request: JobRequest, roots: LocalRoots) throws(ValidationIssue) {
        guard request.kind == .upload else { return }
        do throws(JobFailure) {
            try roots.check(request.source, role: "source")
        } catch {
            throw ValidationIssue(
                field: "source", problem: "the folder \(request.source) is not inside this worker's local roots",
                fix: "run workers with --local-root for that folder, or schedule folders inside the roots")
        }
    }

    /// Fires one due schedule; false when another worker holds it or fired it first.
    func fire(_ name: String) async throws -> Bool {
        let registry = self.registry
        let roots = localRoots
        let firing = try await store.schedules.fire(name, worker: workerName) { request in
            var ids = UUIDv7Generator(random: SystemRandomNumberGenerator())
            let now = Date()
            return Result { () throws(ValidationIssue) -> JobSpec in
                // A producer wrote the template: its folder must lie in this worker's roots before it is looked at,
                // or the tick's error and the job's facts would say what exists outside them.
                try Self.checkLocalPath(of: request, roots: roots)
                return try request.validated(
                    jobID: ids.next(now: now), now: now, currentDirectory: "/",
                    // A scheduled tree upload's folder must be here (a fetch template inspects no file).
                    inspectFile: LocalFileInspector.examine, providers: registry)
            }
        }
        guard let firing else { return false }
        if firing.missed > 0 { missed.increment(by: firing.missed) }
        var metadata: Logger.Metadata = [
            "schedule": "\(name)", "tick": "\(ScheduleTime.iso8601(firing.tick))", "missed": "\(firing.missed)",
            "manual": "\(firing.manual)",
        ]
        if firing.quarantined {
            failed.increment()
            metadata["reason"] = "\(firing.error ?? "")"
            logger.error("schedule paused: its firings kept ending with their worker dead", metadata: metadata)
        } else if let job = firing.jobID {
            enqueued.increment()
            metadata["job"] = "\(job.uuidString.lowercased())"
            logger.info("schedule fired", metadata: metadata)
        } else if let running = firing.skippedFor {
            skipped.increment()
            metadata["still_going"] = "\(running.uuidString.lowercased())"
            logger.info("schedule tick skipped: the previous run is still going", metadata: metadata)
        } else {
            failed.increment()
            metadata["error"] = "\(firing.error ?? "")"
            logger.warning("schedule tick enqueued nothing", metadata: metadata)
        }
        return true
    }
}
