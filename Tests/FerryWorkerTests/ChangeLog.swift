import Postgres
import Synchronization

/// What a `DatabaseWrites` announced, in order.
final class ChangeLog: Sendable {
    private let changes = Mutex<[SQLState?]>([])

    var all: [SQLState?] { changes.withLock { $0 } }

    func append(_ change: SQLState?) { changes.withLock { $0.append(change) } }
}
