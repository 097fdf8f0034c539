import Foundation
import Postgres

/// A kind of name the shell completions read from the database when the user presses TAB.
///
/// Each reads one of the status views `ferry_reader` is granted (docs/operations.md#roles), so a completion needs
/// no more than a reader's rights, and each answer is filtered by the prefix typed and capped.
enum CompletionSource: String, Sendable, CaseIterable {
    case batch
    case queue
    case account
    case schedule
    case job

    /// At most this many values per answer: more than a shell shows usefully, few enough to read in a moment.
    static let limit = 200

    /// The statement and its values for `prefix`, or `nil` when no value can start with it (a job id prefix
    /// that is not hexadecimal).
    func statement(prefix: String) -> (sql: String, binds: [any PostgresBindable])? {
        switch self {
        case .batch:
            // The newest first: the batches a user is likely to name.
            return (
                "SELECT batch FROM ferry.batch_status WHERE starts_with(batch, $1) ORDER BY enqueued_at DESC NULLS LAST, batch LIMIT $2",
                [prefix, Self.limit])
        case .queue:
            return (
                "SELECT DISTINCT queue FROM ferry.queue_stats WHERE starts_with(queue, $1) ORDER BY queue LIMIT $2",
                [prefix, Self.limit])
        case .account:
            return (
                "SELECT name FROM ferry.account_status WHERE starts_with(name, $1) ORDER BY name LIMIT $2",
                [prefix, Self.limit])
        case .schedule:
            return (
                "SELECT name FROM ferry.schedule_status WHERE NOT removed AND starts_with(name, $1) ORDER BY name LIMIT $2",
                [prefix, Self.limit])
        case .job:
            // A range of the primary key rather than a text match, so a prefix reads an index range, not the table.
            guard let (low, high) = Self.jobIDRange(prefix: prefix) else { return nil }
            return (
                "SELECT job_id::text FROM ferry.job_status WHERE job_id BETWEEN $1::uuid AND $2::uuid ORDER BY job_id DESC LIMIT $3",
                [low, high, Self.limit])
        }
    }

    /// The lowest and highest job ids starting with `prefix` (hex digits, dashes where a UUID has them), or `nil`
    /// when no UUID can start with it.
    static func jobIDRange(prefix: String) -> (low: String, high: String)? {
        let dashes: Set<Int> = [8, 13, 18, 23]
        var digits = ""
        for (offset, character) in prefix.lowercased().enumerated() {
            guard offset < 36 else { return nil }
            if dashes.contains(offset) {
                guard character == "-" else { return nil }
            } else {
                guard character.isHexDigit else { return nil }
                digits.append(character)
            }
        }
        func uuid(padding: Character) -> String {
            let hex = Array(digits + String(repeating: padding, count: 32 - digits.count))
            return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(hex[$0]) }.joined(separator: "-")
        }
        return (uuid(padding: "0"), uuid(padding: "f"))
    }
}
