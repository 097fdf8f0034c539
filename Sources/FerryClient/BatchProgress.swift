import FerryStore
import Foundation

/// A batch as `ferry.batch_status` shows it: its row (``BatchStatusRow``), read as its own properties
/// (`progress.jobs`, `progress.failed`, `progress.bytesDone`, `progress.archived` …), with the values a caller
/// waits on named for it.
@dynamicMemberLookup
public struct BatchProgress: Sendable, Hashable {
    /// The batch's row of `ferry.batch_status`.
    public var row: BatchStatusRow
    public var name: String { row.batch }
    /// 0…100; 100 only once every job finished.
    public var percent: Double { Double(row.percent) ?? 0 }
    /// No job is queued or running.
    public var isDone: Bool { row.done }
    /// Done, and every job succeeded.
    public var succeededWhole: Bool { isDone && row.failed == 0 && row.cancelled == 0 && row.discarded == 0 }

    init(_ row: BatchStatusRow) {
        self.row = row
    }

    /// A column of ``row`` by its name.
    public subscript<Value>(dynamicMember keyPath: KeyPath<BatchStatusRow, Value>) -> Value {
        row[keyPath: keyPath]
    }
}
