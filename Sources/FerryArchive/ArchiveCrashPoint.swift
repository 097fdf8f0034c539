import Foundation

/// Test hook: `FERRY_ARCHIVE_CRASH_AT=<point>` makes `ferry archive` kill itself with SIGKILL at that step, so
/// tests can prove a crash there loses and duplicates nothing. Unset in production, it costs one lookup.
enum ArchiveCrashPoint: String {
    /// The file is written and synced as `.partial`; the database transaction is not committed.
    case written
    /// The archive is committed (rows gone); the file still has its `.partial` name.
    case committed
    /// The file has its final name; no manifest yet and the record still says sealed.
    case renamed

    static let configured = ProcessInfo.processInfo.environment["FERRY_ARCHIVE_CRASH_AT"].flatMap(Self.init(rawValue:))

    static func reach(_ point: ArchiveCrashPoint) {
        if configured == point { kill(getpid(), SIGKILL) }
    }
}
