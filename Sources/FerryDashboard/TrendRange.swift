import Foundation

/// The spans the trends page offers: an hour by the minute, a day by the quarter hour, a week by the hour.
enum TrendRange: String, CaseIterable, Sendable {
    case hour = "1h"
    case day = "24h"
    case week = "7d"

    /// Seconds per bucket.
    var stepSeconds: Int {
        switch self {
        case .hour: 60
        case .day: 900
        case .week: 3600
        }
    }

    /// Buckets shown, the newest (current, still filling) on the right.
    var buckets: Int {
        switch self {
        case .hour: 60
        case .day: 96
        case .week: 168
        }
    }

    /// The unit a rate is given in ("min" for jobs per minute).
    var stepName: String {
        switch self {
        case .hour: "min"
        case .day: "15 min"
        case .week: "h"
        }
    }

    var label: String {
        switch self {
        case .hour: "last hour"
        case .day: "last 24 hours"
        case .week: "last 7 days"
        }
    }

    /// The start of the oldest bucket for a page drawn at `now`.
    func since(_ now: Date) -> Date {
        let step = Double(stepSeconds)
        let current = (now.timeIntervalSince1970 / step).rounded(.down) * step
        return Date(timeIntervalSince1970: current - step * Double(buckets - 1))
    }
}
