import Postgres

extension FerryStoreError {
    /// What an error thrown by a store call means, so that no module outside the store branches on the PostgreSQL
    /// driver's errors: a `FerryStoreError` as it is; a PostgreSQL error by its kind and SQLSTATE (connection lost,
    /// read-only, disk full, login refused, permission denied, else `database`); nil for any other error.
    ///
    /// The message is the driver's safe description (it quotes no values), except for a privilege refusal, whose
    /// server message names objects and roles, never values (Ferry's own refusals, migration 0015, included).
    public init?(classifying error: any Error) {
        if let error = error as? FerryStoreError {
            self = error
            return
        }
        guard let error = error as? PostgresError else { return nil }
        let state = error.sqlState?.code
        if error.code == .loginRefused {
            self.init(.loginRefused, error.reason, sqlState: state)
        } else if error.isConnectionLoss {
            // The server's own words help when the connection was never made (no such host, refused).
            let detail = error.code == .connectionFailed ? error.serverMessage?.split(separator: "\n").first.map(String.init) : nil
            self.init(.connectionLost, error.reason, fix: detail, sqlState: state)
        } else if error.sqlState == .readOnlySQLTransaction {
            self.init(.readOnly, "the server is read-only (a standby, or a failover under way)", sqlState: state)
        } else if error.sqlState == .diskFull {
            self.init(.diskFull, "the server's disk is full", sqlState: state)
        } else if error.sqlState == .insufficientPrivilege {
            self.init(.permissionDenied, error.serverMessage ?? error.reason, fix: error.hint, sqlState: state)
        } else {
            self.init(.database, error.description, sqlState: state)
        }
    }

    /// The code of a store call's error (`init(classifying:)`), nil for errors that are not the store's.
    public static func code(of error: any Error) -> Code? {
        FerryStoreError(classifying: error)?.code
    }

    /// True when the server answers but refuses to write now (read-only or disk full): the same write may succeed
    /// once that passes, so workers hold their outcomes rather than fail jobs.
    public var refusesWrites: Bool { code == .readOnly || code == .diskFull }
}
