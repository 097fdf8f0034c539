import FerryCore
import Postgres

/// What a list of jobs across batches is narrowed by (`ferry status --state failed --account box --queue q`): a
/// state, a queue and an account, each optional; every one given must hold.
public struct JobListFilter: Sendable, Hashable {
    public var state: JobState?
    public var queue: String?
    public var account: String?

    public init(state: JobState? = nil, queue: String? = nil, account: String? = nil) {
        self.state = state
        self.queue = queue
        self.account = account
    }

    /// Nothing to narrow by.
    public var isEmpty: Bool { state == nil && queue == nil && account == nil }

    /// The conditions on the columns of `alias` (a row of `ferry.jobs`), their values bound from `$first` on.
    func conditions(alias: String, first: Int) -> (sql: [String], binds: [any PostgresBindable]) {
        var sql = [String]()
        var binds = [any PostgresBindable]()
        for (column, value) in [("state", state?.rawValue), ("queue", queue), ("account", account)] {
            guard let value else { continue }
            binds.append(value)
            sql.append("\(alias).\(column) = $\(first + binds.count - 1)")
        }
        return (sql, binds)
    }
}
