import FerryCore
import FerryProviders
import FerryStore
import Foundation

/// `ferry schedule add` and `pause` in the test's process, for tests whose subject is not the command line.
public enum TestSchedules {
    /// `ferry schedule add NAME --every Ns -- KIND …`: the template checked as the job of its first tick (as the
    /// command checks it; a tree's folder is the workers' to look at), then stored. The command's floor on the
    /// interval is its own; a test may go below it here, as with `FERRY_SCHEDULE_MIN_INTERVAL`.
    public static func add(
        _ store: FerryStore, _ name: String, everySeconds: Int64, template: JobRequest, overlap: ScheduleOverlap = .skip
    ) async throws {
        let recurrence = ScheduleRecurrence.every(seconds: everySeconds)
        let now = Date()
        var probe = template
        probe.idempotencyKey = ScheduleStore.scheduleKey(name, tick: recurrence.next(after: now) ?? now)
        let spec = try probe.validated(
            jobID: UUIDv7.make(), now: now, currentDirectory: "/",
            inspectFile: { _ in .failure(.notRegularFile(kind: "directory")) }, providers: ProviderRegistry.standard)
        _ = try await store.schedules.add(
            name: name, recurrence: recurrence, template: template, probe: spec, overlap: overlap, replace: false, now: now)
    }

    /// `ferry schedule pause NAME`.
    public static func pause(_ store: FerryStore, _ name: String) async throws {
        _ = try await store.schedules.setPaused(name, paused: true, now: Date())
    }
}
