import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Test hook: `FERRY_SCHEDULE_CRASH_AT=enqueued` makes a worker kill itself with SIGKILL while firing a tick, after
/// its job is enqueued and before the transaction commits, so tests can prove such a crash loses and duplicates
/// nothing. Unset in production, it costs one lookup.
enum ScheduleCrashPoint: String {
    /// The tick's job is written (uncommitted); the tick row is not.
    case enqueued

    static let configured = ProcessInfo.processInfo.environment["FERRY_SCHEDULE_CRASH_AT"].flatMap(Self.init(rawValue:))

    static func reach(_ point: ScheduleCrashPoint) {
        if configured == point { kill(getpid(), SIGKILL) }
    }
}
