import Foundation
import Tracing

/// A point in wall-clock time for spans that did not start now: an attempt rebuilt from the event log, a
/// download stretch that began at the previous checkpoint.
struct TraceTimestamp: TracerInstant {
    var nanosecondsSinceEpoch: UInt64

    init(_ date: Date) {
        nanosecondsSinceEpoch = UInt64(max(0, date.timeIntervalSince1970 * 1_000_000_000).rounded())
    }

    static func now() -> TraceTimestamp { TraceTimestamp(Date()) }

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.nanosecondsSinceEpoch < rhs.nanosecondsSinceEpoch }
}
