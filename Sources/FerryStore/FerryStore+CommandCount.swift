import FerryCore
import Foundation
import Postgres

extension FerryStore {
    /// Which jobs of `target` a command would change: the same conditions `cancel`, `retry` and `discard` use,
    /// so a count shown before acting is the count the command would act on. Nil for an unknown command.
    static func eligibility(_ command: String, _ target: JobFilter) -> String? {
        switch command {
        case "cancel": "(state = 'queued' OR (state = 'running' AND NOT cancel_requested))"
        case "retry": target.isNamed ? "state IN ('failed', 'cancelled', 'discarded')" : "state IN ('failed', 'cancelled')"
        case "discard": "state = 'failed'"
        default: nil
        }
    }

    /// How many jobs of `target` the command `command` (`cancel`, `retry` or `discard`) would change now: what
    /// the dashboard's confirmation names, and checks again when the operator confirms. Callers pass only those
    /// three (the dashboard checks its route's action first).
    public func eligibleCount(_ target: JobFilter, command: String) async throws -> Int {
        guard let eligible = Self.eligibility(command, target) else { preconditionFailure("unknown command \(command)") }
        let (condition, binds) = target.condition(from: 1)
        do {
            return try await client.withConnection { connection in
                let rows = try connection.query("SELECT count(*) AS n FROM ferry.jobs WHERE \(condition) AND \(eligible)", binds).rows
                return Int(try rows.first?.decode(Int64.self, column: "n") ?? 0)
            }
        } catch {
            throw Self.translate(error)
        }
    }
}
