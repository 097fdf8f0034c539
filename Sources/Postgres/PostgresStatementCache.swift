/// The statements one connection has prepared on its server session, by SQL text.
///
/// A statement is prepared on its second use (`threshold`): a statement sent once costs one round trip, as
/// before, while the worker's claim, outcome and heartbeat statements, sent thousands of times, are parsed and
/// planned by the server once rather than each time. At most `capacity` statements are prepared; the least
/// recently used is then deallocated. Texts seen but not yet prepared are counted in a bounded table as well, so
/// a caller that builds many distinct texts costs a little memory, never server state.
///
/// Names carry a random token of the connection, so behind a pooler that lends server sessions to many clients
/// one client can never execute a statement another prepared under the same name.
final class PostgresStatementCache {
    struct Entry {
        var uses: Int
        var lastUse: UInt64
        var name: String?
    }

    /// What `query` should do with a text.
    enum Plan: Equatable {
        /// Send it unprepared (`PQexecParams`).
        case unprepared
        /// Prepare it under this name, then execute it.
        case prepare(String)
        /// Execute the statement already prepared under this name.
        case execute(String)
    }

    let capacity: Int
    let threshold: Int
    private let token: String
    private var entries: [String: Entry] = [:]
    private var clock: UInt64 = 0
    private var nextNumber = 0
    /// Names evicted or invalidated whose server statement still exists: `DEALLOCATE`d when the connection is
    /// next usable (not inside a failed transaction).
    private(set) var pendingDeallocation: [String] = []
    /// False once the server lost a statement this cache prepared (a pooler in transaction mode, `DISCARD ALL`):
    /// from then on the connection sends every statement unprepared.
    private(set) var isEnabled: Bool

    /// Statements at most this long are prepared; longer texts are most likely built with values in them.
    static let maximumTextLength = 16_384

    init(capacity: Int, threshold: Int = 2, token: String = PostgresStatementCache.randomToken()) {
        self.capacity = max(0, capacity)
        self.threshold = max(1, threshold)
        self.token = token
        self.isEnabled = capacity > 0
    }

    /// The prepared statements' count (for tests and diagnostics).
    var preparedCount: Int { entries.values.filter { $0.name != nil }.count }

    /// Records a use of `sql` and says how to send it.
    func plan(for sql: String) -> Plan {
        guard isEnabled, sql.utf8.count <= Self.maximumTextLength else { return .unprepared }
        clock += 1
        if var entry = entries[sql] {
            entry.uses += 1
            entry.lastUse = clock
            entries[sql] = entry
            if let name = entry.name { return .execute(name) }
            return entry.uses >= threshold ? .prepare(newName()) : .unprepared
        }
        entries[sql] = Entry(uses: 1, lastUse: clock, name: nil)
        trim()
        return threshold <= 1 ? .prepare(newName()) : .unprepared
    }

    /// Records that `sql` is now prepared on the server as `name`, evicting the least recently used prepared
    /// statement when over capacity.
    func prepared(_ sql: String, as name: String) {
        entries[sql, default: Entry(uses: threshold, lastUse: clock, name: nil)].name = name
        let prepared = entries.filter { $0.value.name != nil }
        guard prepared.count > capacity,
            let oldest = prepared.filter({ $0.key != sql }).min(by: { $0.value.lastUse < $1.value.lastUse })
        else { return }
        forget(oldest.key)
    }

    /// Forgets `sql`'s statement (its plan can no longer run, say): it is deallocated later and prepared again
    /// under a new name on a later use.
    func forget(_ sql: String) {
        guard let name = entries[sql]?.name else { return }
        entries[sql]?.name = nil
        entries[sql]?.uses = 0
        pendingDeallocation.append(name)
    }

    /// Turns the cache off for good: the server no longer holds what it prepared, or never will for long.
    func disable() {
        isEnabled = false
        entries.removeAll()
        pendingDeallocation.removeAll()
    }

    /// Hands over the names waiting for `DEALLOCATE`, emptying the list.
    func takePendingDeallocation() -> [String] {
        defer { pendingDeallocation.removeAll() }
        return pendingDeallocation
    }

    /// Keeps the table of counted texts bounded: drops the least recently used unprepared ones.
    private func trim() {
        let limit = max(64, capacity * 4)
        guard entries.count > limit else { return }
        let unprepared = entries.filter { $0.value.name == nil }.sorted { $0.value.lastUse < $1.value.lastUse }
        for (sql, _) in unprepared.prefix(entries.count - limit / 2) { entries[sql] = nil }
    }

    private func newName() -> String {
        nextNumber += 1
        return "ferry_\(token)_\(nextNumber)"
    }

    static func randomToken() -> String {
        String(UInt64.random(in: 0...UInt64.max), radix: 36)
    }
}
