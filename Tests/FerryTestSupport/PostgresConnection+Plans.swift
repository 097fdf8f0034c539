import Postgres

extension PostgresConnection {
    /// Runs `body` with `auto_explain` logging the plan of every statement, nested ones included (JSON, with the
    /// rows each node read, no timing), and returns what `body` returned with those plans.
    public func collectingPlans<R>(_ body: () throws -> R) throws -> (R, [String]) {
        try execute("""
            LOAD 'auto_explain';
            SET auto_explain.log_min_duration = 0;
            SET auto_explain.log_nested_statements = on;
            SET auto_explain.log_analyze = on;
            SET auto_explain.log_timing = off;
            SET auto_explain.log_format = json;
            SET client_min_messages = log;
            """)
        defer { try? execute("SET client_min_messages = warning") }
        return try collectingServerMessages(body)
    }
}
