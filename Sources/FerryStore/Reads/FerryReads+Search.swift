import FerryCore
import Foundation
import Postgres

extension FerryReads {
    /// The most jobs one page of a search shows.
    public static let searchPageSize = 50

    /// The expression migration 0032's error code index is built on: a query finds an index only when it spells
    /// the expression alike.
    static let errorCodeExpression = "substring(last_error FROM '^([a-z][a-z0-9_]{0,63}):')"

    /// Jobs of every batch (and none) that `search` finds, newest first, after the job `before` (keyset: a page's
    /// cost does not grow with its depth), at most `limit` (up to ``searchPageSize``).
    public func searchJobs(_ search: JobSearch, before: UUID? = nil, limit: Int = searchPageSize) async throws -> [JobStatusRow] {
        let query = Self.searchQuery(search, before: before, limit: limit)
        do {
            return try await client.withConnection { connection in
                try connection.query(query.sql, query.binds).rows.map(JobStatusRow.init(row:))
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// The SQL of one search page: one index condition (primary key range, trigram, error code, metadata, the newest
    /// failures) and the keyset bound, newest first.
    static func searchQuery(_ search: JobSearch, before: UUID?, limit: Int) -> (sql: String, binds: [any PostgresBindable]) {
        let pageSize = max(1, min(limit, searchPageSize))
        switch search {
        case .text(let text):
            return textQuery(text, before: before, pageSize: pageSize)
        case .errorText(let text):
            var binds: [any PostgresBindable] = [containsPattern(text)]
            if let before { binds.append(before) }
            let sql = """
                SELECT \(JobStatusRow.columns) FROM ferry.job_status
                 WHERE job_id IN (\(recentFailures(matching: "$1", before: before == nil ? nil : "$2", pageSize: pageSize)))
                 ORDER BY job_id DESC LIMIT \(pageSize)
                """
            return (sql, binds)
        default:
            let (conditions, binds) = indexedConditions(search, before: before)
            let sql = """
                SELECT \(JobStatusRow.columns) FROM ferry.job_status
                 WHERE \(conditions.joined(separator: " AND ")) ORDER BY job_id DESC LIMIT \(pageSize)
                """
            return (sql, binds)
        }
    }

    /// Plain text: the newest page of path matches and the newest page of recent failures whose error matches,
    /// merged. Each side keeps its own plan (a trigram probe or the newest terms first; the newest failures by
    /// `jobs_finished_idx`), which one `OR` over both would lose.
    static func textQuery(_ text: String, before: UUID?, pageSize: Int) -> (sql: String, binds: [any PostgresBindable]) {
        var binds: [any PostgresBindable] = [containsPattern(text)]
        if let before { binds.append(before) }
        let bound = before == nil ? "" : " AND s.job_id < $2::uuid"
        let sql = """
            SELECT \(JobStatusRow.columns) FROM ferry.job_status
             WHERE job_id IN (
                   (SELECT s.job_id FROM ferry.job_search s WHERE s.path ILIKE $1\(bound) ORDER BY s.job_id DESC LIMIT \(pageSize))
                   UNION ALL
                   (\(recentFailures(matching: "$1", before: before == nil ? nil : "$2", pageSize: pageSize))))
             ORDER BY job_id DESC LIMIT \(pageSize)
            """
        return (sql, binds)
    }

    /// Ids of the newest page of failed jobs, among the newest ``JobSearch/errorTextScanLimit`` failures, whose
    /// last error matches the pattern bound at `pattern` (and below the job id bound at `before`).
    static func recentFailures(matching pattern: String, before: String?, pageSize: Int) -> String {
        """
        SELECT f.job_id FROM (SELECT job_id, last_error FROM ferry.job_status WHERE state = 'failed'
                               ORDER BY finished_at DESC LIMIT \(JobSearch.errorTextScanLimit)) f
         WHERE f.last_error ILIKE \(pattern)\(before.map { " AND f.job_id < \($0)::uuid" } ?? "")
         ORDER BY f.job_id DESC LIMIT \(pageSize)
        """
    }

    /// The conditions of the searches one index answers on its own, and their binds.
    static func indexedConditions(_ search: JobSearch, before: UUID?) -> (conditions: [String], binds: [any PostgresBindable]) {
        var binds: [any PostgresBindable] = []
        var conditions: [String]
        switch search {
        case .idPrefix(let digits):
            binds = [uuid(digits, padding: "0"), uuid(digits, padding: "f")]
            conditions = ["job_id BETWEEN $1::uuid AND $2::uuid"]
        case .text, .errorText:
            preconditionFailure("searchQuery answers text searches with their own query")
        case .path(let text):
            binds = [containsPattern(text)]
            // The terms live beside the job (migration 0037): a trigram probe there for rare text, or the newest jobs
            // by primary key each tested by its row there, for text most jobs have.
            conditions = ["EXISTS (SELECT 1 FROM ferry.job_search s WHERE s.job_id = job_status.job_id AND s.path ILIKE $1)"]
        case .errorCode(let code):
            binds = [code]
            conditions = ["last_error IS NOT NULL", "\(errorCodeExpression) = $1"]
        case .metadata(let key, let value):
            // The value as a string, and as the number or boolean it spells: metadata holds both kinds.
            let candidates = metadataValues(value).map { JSONValue.object([key: $0]).jsonText }
            binds = candidates
            let tests = candidates.indices.map { "s.metadata @> $\($0 + 1)::jsonb" }
            conditions = [
                "EXISTS (SELECT 1 FROM ferry.job_search s WHERE s.job_id = job_status.job_id AND s.metadata IS NOT NULL AND ("
                    + tests.joined(separator: " OR ") + "))"
            ]
        }
        if let before {
            binds.append(before)
            conditions.append("job_id < $\(binds.count)::uuid")
        }
        return (conditions, binds)
    }

    /// The lowest (`padding` "0") or highest ("f") job id that starts with these hex digits.
    static func uuid(_ digits: String, padding: Character) -> String {
        let full = Array(digits.prefix(32) + String(repeating: padding, count: max(0, 32 - digits.count)))
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(full[$0]) }.joined(separator: "-")
    }

    static func metadataValues(_ text: String) -> [JSONValue] {
        var values: [JSONValue] = [.string(text)]
        if let integer = Int64(text) {
            values.append(.int(integer))
        } else if let number = Double(text), number.isFinite {
            values.append(.double(number))
        } else if text == "true" || text == "false" {
            values.append(.bool(text == "true"))
        }
        return values
    }
}
