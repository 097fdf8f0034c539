import Foundation

/// What one firing of a due schedule did: the tick, its job (or why none, or the run still going that it gave way
/// to), and the earlier ticks nobody fired.
public struct ScheduleFiring: Sendable, Hashable {
    public var schedule: String
    public var tick: Date
    public var jobID: UUID?
    public var error: String?
    /// The previous run's job, still going, when overlap `skip` made this tick enqueue nothing.
    public var skippedFor: UUID?
    public var missed: Int64
    public var nextTick: Date?
    /// A run asked for now (`ferry schedule run`), which leaves the regular ticks where they were.
    public var manual = false
    /// The schedule was paused instead of fired: firings of it kept ending with their worker dead (`error` says so).
    public var quarantined = false
}
