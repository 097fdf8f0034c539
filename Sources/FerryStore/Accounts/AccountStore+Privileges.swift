import Postgres

extension AccountStore {
    /// Account commands run as the schema owner: the group roles may read accounts (workers also their sealed
    /// secrets) but change none. PostgreSQL's refusal (SQLSTATE 42501) names a table, not the role that is
    /// needed; this says which, and what to do. Other errors go through ``FerryStore/translate(_:)``.
    /// - Parameter what: what was refused, as the message starts: "ferry account update", "checking the secret key".
    static func ownerOnly(_ what: String, _ error: any Error) -> any Error {
        guard let postgres = error as? PostgresError, postgres.sqlState == .insufficientPrivilege else {
            return FerryStore.translate(error)
        }
        return FerryStoreError(
            .ownerRequired,
            "\(what) needs the schema owner (the role that ran ferry migrate): this login may not change "
                + "accounts or read their secrets [SQLSTATE 42501]",
            fix: "run it with --database-url (or FERRY_DATABASE_URL) naming the schema owner; members of ferry_producer, "
                + "ferry_worker and ferry_reader cannot")
    }
}
