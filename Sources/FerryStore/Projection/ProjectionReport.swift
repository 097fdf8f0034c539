import FerryCore
import Foundation

/// The result of replaying every event and comparing with the stored projection.
public struct ProjectionReport: Sendable {
    /// One job whose stored row differs from the replay.
    public struct Difference: Sendable {
        public enum Kind: Sendable {
            /// Events exist but the projection has no row.
            case missingFromProjection
            /// The projection has a row without events.
            case missingEvents
            /// Both exist; these columns differ (name, stored, replayed).
            case columns([(name: String, stored: String, replayed: String)])
            /// The fold refused one of the job's events, as `ferry.apply_event` would (an append would have
            /// been refused with this SQLSTATE): the log itself is inconsistent.
            case refused(version: Int64, type: String, sqlState: String, message: String)
        }
        public var jobID: UUID
        public var kind: Kind

        /// The difference as text: one line, or a heading and one indented line per column.
        public var lines: [String] {
            let id = jobID.uuidString.lowercased()
            switch kind {
            case .missingFromProjection: return ["job \(id): has events but no projection row"]
            case .missingEvents: return ["job \(id): projection row without any events"]
            case .refused(let version, let type, let sqlState, let message):
                return ["job \(id): event version \(version) (\(type)) is refused by the fold: \(sqlState) \(message)"]
            case .columns(let columns):
                return ["job \(id):"] + columns.map { "  \($0.name): stored \($0.stored), replayed \($0.replayed)" }
            }
        }
    }

    public var jobsChecked: Int
    public var eventsReplayed: Int
    /// Which jobs were replayed.
    public var scope: ProjectionScope = .all
    /// The snapshot's last log position (the replay saw everything up to it).
    public var lastPosition: Int64?
    public var differences: [Difference]
    /// True when more differences exist than were listed.
    public var truncated: Bool

    public var isClean: Bool { differences.isEmpty }

    /// A readable report, one block per job.
    public var text: String {
        let checked = scope == .all ? "" : "checked \(scope.summary), up to position \(lastPosition ?? 0)\n"
        if isClean {
            return checked + "projection verified: \(jobsChecked) jobs, \(eventsReplayed) events replayed, 0 differences"
        }
        var lines = [
            checked + "projection differs from the event log: \(differences.count)\(truncated ? "+" : "") job(s) of \(jobsChecked)"
        ]
        for difference in differences {
            lines += difference.lines.map { "  " + $0 }
        }
        lines.append("fix: find what changed ferry.jobs outside the event log, then run ferry projection rebuild")
        return lines.joined(separator: "\n")
    }
}
