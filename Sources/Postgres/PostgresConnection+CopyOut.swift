import CLibPQ

extension PostgresConnection {
    /// Runs `COPY … TO STDOUT` (text format) and hands each row to `body` as it arrives, without holding the
    /// whole result in memory. The bytes are one row in COPY's text format, newline included; decode them with
    /// ``PostgresCopyRow``. The buffer is only valid during the call.
    ///
    /// COPY takes no bind parameters: pass values with `set_config(name, $1, true)` in the same transaction and
    /// read them with `current_setting(name)` in the statement.
    /// If `body` throws, the rest of the COPY is drained and the error rethrown. Returns the number of rows.
    @discardableResult
    public func copyOut(_ sql: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        guard let start = PQexec(handle, sql) else {
            throw connectionError(reason: "the server did not answer the COPY")
        }
        let startStatus = PQresultStatus(start)
        if startStatus != PGRES_COPY_OUT {
            defer { PQclear(start) }
            if startStatus == PGRES_FATAL_ERROR { throw error(from: start) }
            throw PostgresError(code: .misuse, reason: "copyOut needs a COPY … TO STDOUT statement")
        }
        PQclear(start)
        var failure: (any Error)?
        var rows = 0
        while true {
            var pointer: UnsafeMutablePointer<CChar>?
            let length = PQgetCopyData(handle, &pointer, 0)
            if length == -1 { break }  // done: the final result follows
            if length == -2 {
                if failure == nil { failure = connectionError(reason: "reading COPY data failed") }
                break
            }
            guard let pointer else { continue }
            defer { PQfreemem(pointer) }
            rows += 1
            // After a failure keep reading (and dropping) rows: libpq needs the COPY drained to be usable again.
            if failure == nil {
                do {
                    try body(UnsafeRawBufferPointer(start: pointer, count: Int(length)))
                } catch {
                    failure = error
                }
            }
        }
        var resultError: PostgresError?
        while let result = PQgetResult(handle) {
            if PQresultStatus(result) != PGRES_COMMAND_OK && resultError == nil {
                resultError = error(from: result)
            }
            PQclear(result)
        }
        if let failure { throw failure }
        if let resultError { throw resultError }
        return rows
    }
}
