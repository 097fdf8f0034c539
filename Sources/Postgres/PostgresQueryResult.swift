/// The outcome of one statement: its rows (if any) and the number of rows it affected.
public struct PostgresQueryResult: Sendable {
    public let columns: PostgresColumns
    public let rows: [PostgresRow]
    /// Rows inserted, updated, deleted or copied (`PQcmdTuples`); 0 when the command reports none.
    public let affectedRows: Int

    /// The first row, if any.
    public var first: PostgresRow? { rows.first }
}
