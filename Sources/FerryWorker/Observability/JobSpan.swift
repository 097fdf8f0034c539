import Tracing

/// Child spans of a job's attempt (chunks, parts, commits, token refreshes). With no tracer installed these are
/// no-op spans: the cost is a task-local binding per chunk, never per buffer.
enum JobSpan {
    /// Runs `body` in a span named `name`, marked as an error if `body` throws. Attributes never carry secrets.
    static func run<T>(_ name: String, _ attributes: SpanAttributes = [:], _ body: () async throws -> T) async throws -> T {
        try await withSpan(name, ofKind: .client) { span in
            span.attributes.merge(attributes)
            do {
                return try await body()
            } catch {
                // Ferry's errors describe themselves without secrets (the brief's rule for all error text).
                span.setStatus(SpanStatus(code: .error, message: "\(error)"))
                throw error
            }
        }
    }
}
