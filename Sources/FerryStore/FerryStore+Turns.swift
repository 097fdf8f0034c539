import Postgres
import Synchronization

extension FerryStore {
    /// Runs `body` while holding `scope`'s turn across the fleet: one caller at a time in every process on every
    /// machine (a transaction-scoped advisory lock, held on a reserved connection while `body` runs). A holder that
    /// dies loses the turn with its connection.
    ///
    /// The turn only orders work; once `body` has run its result stands, even if ending the turn then fails (the
    /// connection dropped: the lock went with it).
    public func withTurn<T: Sendable>(_ scope: String, _ body: () async throws -> T) async throws -> T {
        let outcome = Mutex<Result<T, any Error>?>(nil)
        do {
            try await client.withHeldTransaction { held in
                try await held.run { connection in
                    _ = try connection.query("SELECT pg_advisory_xact_lock(hashtext('ferry.turn'), hashtext($1))", [scope])
                }
                let result: Result<T, any Error>
                do { result = .success(try await body()) } catch { result = .failure(error) }
                outcome.withLock { $0 = result }
            }
        } catch {
            guard let ran = outcome.withLock({ $0 }) else { throw FerryStore.translate(error) }
            return try ran.get()
        }
        guard let ran = outcome.withLock({ $0 }) else { throw FerryStoreError(.connectionUnavailable, "the turn ended without running its work") }
        return try ran.get()
    }
}
