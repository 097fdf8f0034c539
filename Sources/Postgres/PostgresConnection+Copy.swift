import CLibPQ

extension PostgresConnection {
    /// Runs `COPY … FROM STDIN` (text format) and lets `body` stream rows into it.
    ///
    /// If `body` throws, the COPY is aborted on the server and the error rethrown: no rows are kept.
    /// Returns the number of rows copied.
    @discardableResult
    public func copyIn(_ sql: String, _ body: (inout PostgresCopyWriter) throws -> Void) throws -> Int {
        guard let start = PQexec(handle, sql) else {
            throw connectionError(reason: "the server did not answer the COPY")
        }
        let startStatus = PQresultStatus(start)
        if startStatus != PGRES_COPY_IN {
            defer { PQclear(start) }
            if startStatus == PGRES_FATAL_ERROR { throw error(from: start) }
            throw PostgresError(code: .misuse, reason: "copyIn needs a COPY … FROM STDIN statement")
        }
        PQclear(start)
        var writer = PostgresCopyWriter(handle: handle)
        var failure: (any Error)?
        do {
            try body(&writer)
            try writer.flush()
        } catch {
            failure = error
        }
        let endStatus = failure == nil ? PQputCopyEnd(handle, nil) : PQputCopyEnd(handle, "aborted by client")
        guard endStatus == 1 else {
            throw failure ?? connectionError(reason: "ending COPY failed")
        }
        // Drain every result: libpq requires it before the connection is usable again.
        var resultError: PostgresError?
        var count = 0
        while let result = PQgetResult(handle) {
            let status = PQresultStatus(result)
            if status == PGRES_COMMAND_OK {
                count = Int(String(cString: PQcmdTuples(result))) ?? 0
            } else if resultError == nil {
                resultError = error(from: result)
            }
            PQclear(result)
        }
        if let failure { throw failure }
        if let resultError { throw resultError }
        return count
    }
}
