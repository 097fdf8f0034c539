import Foundation

/// Which jobs `verifyProjection` replays.
public enum ProjectionScope: Sendable, Equatable {
    /// Every job, and every projection row (rows without events are found too).
    case all
    /// Jobs with an event after this log position.
    case afterPosition(Int64)
    /// Jobs with an event recorded at or after this time.
    case recordedSince(Date)

    /// What was checked, for the report.
    public var summary: String {
        switch self {
        case .all: "every job"
        case .afterPosition(let position): "jobs with an event after position \(position)"
        case .recordedSince(let date):
            "jobs with an event recorded at or after \(date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted)))"
        }
    }
}
