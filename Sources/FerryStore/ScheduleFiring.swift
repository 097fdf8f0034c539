import Foundation

/// What one firing of a due schedule did: the tick, its job (or why none), and the earlier ticks it skipped.
public struct ScheduleFiring: Sendable, Hashable {
    public var schedule: String
    public var tick: Date
    public var jobID: UUID?
    public var error: String?
    public var missed: Int64
    public var nextTick: Date?
}
