import FerryCore
import Postgres

/// What a list of jobs across batches is narrowed by (`ferry status --state failed --account box --queue q`): a
/// state, a queue, an account and the provider of the job's account, each optional; every one given must hold.
public struct JobListFilter: Sendable, Hashable {
    public var state: JobState?
    public var queue: String?
    public var account: String?
    /// The provider of the job's account (`ferry.accounts.provider`): jobs without an account (URL fetches, local
    /// folders) have none.
    public var provider: String?

    public init(state: JobState? = nil, queue: String? = nil, account: String? = nil, provider: String? = nil) {
        self.state = state
        self.queue = queue
        self.account = account
        self.provider = provider
    }

    /// Nothing to narrow by.
    public var isEmpty: Bool { state == nil && queue == nil && account == nil && provider == nil }

    /// The conditions on the columns of `alias` (a row of `ferry.jobs`), their values bound from `$first` on.
    func conditions(alias: String, first: Int) -> (sql: [String], binds: [any PostgresBindable]) {
        var sql = [String]()
        var binds = [any PostgresBindable]()
        for (column, value) in [("state", state?.rawValue), ("queue", queue), ("account", account)] {
            guard let value else { continue }
            binds.append(value)
            sql.append("\(alias).\(column) = $\(first + binds.count - 1)")
        }
        if let provider {
            binds.append(provider)
            sql.append("\(alias).account IN (SELECT a.name FROM ferry.accounts a WHERE a.provider = $\(first + binds.count - 1))")
        }
        return (sql, binds)
    }
}
