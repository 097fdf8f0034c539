import CLibPQ

extension PostgresConnection {
    /// The number of statements prepared on this connection now (for tests and diagnostics).
    public var preparedStatementCount: Int { statements.preparedCount }

    /// True while this connection still prepares repeated statements (it stops for good when the server loses
    /// one: a pooler in transaction mode).
    public var preparesStatements: Bool { statements.isEnabled }

    /// Prepares `sql` as `name` (`PQprepare`, the parameters' types inferred as `PQexecParams` infers them), then
    /// runs it.
    func prepareAndRun(_ sql: String, name: String, _ texts: [String?]) throws -> PostgresQueryResult {
        _ = try consume(PQprepare(handle, name, sql, 0, nil))
        statements.prepared(sql, as: name)
        return try runPrepared(sql, name: name, texts)
    }

    /// Runs the statement prepared as `name`. When the server no longer has it (a pooler lent another session)
    /// or its plan can no longer run (a migration changed its result type), the statement did nothing: outside a
    /// transaction block it is sent again unprepared; inside one the error stands (the transaction is aborted
    /// either way) and the next use prepares it again, or never again for a lost statement.
    func runPrepared(_ sql: String, name: String, _ texts: [String?]) throws -> PostgresQueryResult {
        let result: OpaquePointer? = withOptionalCStringArray(texts) { pointers in
            PQexecPrepared(handle, name, Int32(texts.count), pointers, nil, nil, 0)
        }
        do {
            return try consume(result)
        } catch let error as PostgresError where error.sqlState == .invalidSQLStatementName {
            logger.notice(
                "a prepared statement is gone from the server session (a pooler in transaction mode?): sending every statement unprepared on this connection; set FERRY_PREPARED_STATEMENTS=off behind PgBouncer")
            statements.disable()
            if isInTransaction { throw error }
            return try queryUnprepared(sql, texts)
        } catch let error as PostgresError where error.sqlState == .featureNotSupported {
            statements.forget(sql)
            if isInTransaction { throw error }
            return try queryUnprepared(sql, texts)
        }
    }

    /// Deallocates statements evicted from the cache, when the session is outside any transaction block (a
    /// failing `DEALLOCATE` must never abort a caller's transaction).
    func deallocatePending() {
        guard !statements.pendingDeallocation.isEmpty, PQtransactionStatus(handle) == PQTRANS_IDLE else { return }
        for name in statements.takePendingDeallocation() {
            // The name is ours (`ferry_<token>_<n>`), never a caller's text.
            _ = try? consume(PQexec(handle, "DEALLOCATE \(name)"))
        }
    }
}
