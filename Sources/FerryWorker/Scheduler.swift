import FerryCore
import FerryStore
import Foundation
import Logging
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

    public init(store: FerryStore, workerName: String, interval: Duration = .seconds(5), registry: ProviderRegistry = .standard, logger: Logger) {
        self.store = store
        self.workerName = workerName
        self.interval = interval
        self.registry = registry
        var logger = logger
        logger[metadataKey: "worker"] = "\(workerName)"
        self.logger = logger
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
                let (upcoming, now) = try await store.upcomingSchedules(limit: batch)
                for (name, next) in upcoming where next <= now {
                    if Task.isShuttingDownGracefully || Task.isCancelled { return }
                    try await fire(name)
                }
                if let later = upcoming.first(where: { $0.1 > now }) {
                    let wait = Duration.milliseconds(Int64(later.1.timeIntervalSince(now) * 1000) + 5)
                    pause = min(interval, wait)
                } else if upcoming.count == batch {
                    pause = .zero  // a full page was due: look again at once
                }
            } catch {
                logger.warning("firing schedules failed; retrying", metadata: ["error": "\(error)"])
            }
            if pause > .zero { await wakeup.wait(timeout: pause) }
        }
    }

    func fire(_ name: String) async throws {
        let registry = self.registry
        let firing = try await store.fireSchedule(name, worker: workerName) { request in
            var ids = UUIDv7Generator(random: SystemRandomNumberGenerator())
            let now = Date()
            return Result { () throws(ValidationIssue) -> JobSpec in
                try request.validated(
                    jobID: ids.next(now: now), now: now, currentDirectory: "/",
                    inspectFile: { _ in .failure(.unreadable) }, providers: registry)
            }
        }
        guard let firing else { return }
        var metadata: Logger.Metadata = [
            "schedule": "\(name)", "tick": "\(ScheduleTime.iso8601(firing.tick))", "missed": "\(firing.missed)",
        ]
        if let job = firing.jobID {
            metadata["job"] = "\(job.uuidString.lowercased())"
            logger.info("schedule fired", metadata: metadata)
        } else {
            metadata["error"] = "\(firing.error ?? "")"
            logger.warning("schedule tick enqueued nothing", metadata: metadata)
        }
    }
}
