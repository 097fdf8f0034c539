import FerryCore
import Foundation

/// What a search across batches looks for, read from one search box:
///
/// - a job id or its start (`01939e5a-7c`, or `id:01939e`): the primary key's range;
/// - `error:CODE` (or `code:CODE`): jobs whose last error starts with that code (`http_not_found: …`);
/// - `error:TEXT` (text that is not a code, such as `error:account is full`): text anywhere in the last error of
///   the newest ``errorTextScanLimit`` failed jobs, case-insensitive;
/// - `KEY=VALUE`: jobs whose metadata has that key with that value (a string, or the number or boolean it spells);
/// - `path:TEXT`: text anywhere in the source or destination, case-insensitive, at least 3 characters (what a
///   trigram index can find);
/// - anything else: that text in the source or destination, or in the last error of a recent failed job.
public enum JobSearch: Sendable, Hashable {
    /// Lowercase hex digits, dashes removed, 1 to 32 of them.
    case idPrefix(String)
    case path(String)
    /// Text in the source or destination (as ``path(_:)``) or in a recently failed job's last error (as
    /// ``errorText(_:)``): what plain text in the search box means.
    case text(String)
    case errorCode(String)
    /// Text anywhere in the last error of one of the newest ``errorTextScanLimit`` failed jobs.
    case errorText(String)
    case metadata(key: String, value: String)

    /// The shortest path text searched: shorter text has no trigram to look up.
    public static let minimumPathLength = 3

    /// How many failed jobs, newest first, an error text search reads. Error text is not indexed (a trigram index
    /// on `last_error` would make every failure's write heavier); the newest failures by `jobs_finished_idx` are
    /// what an operator looks for, and this bounds the read at any depth.
    public static let errorTextScanLimit = 10_000

    /// The longest search text: a bound on the pattern PostgreSQL matches against every row it reads.
    public static let maximumLength = 200

    /// Reads the search box; throws ``JobSearchError`` for text that cannot be searched as given.
    public init(parsing input: String) throws(JobSearchError) {
        let text = input.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw JobSearchError(.empty, "type a job id, a path, error text, error:CODE or KEY=VALUE") }
        guard text.count <= Self.maximumLength else {
            throw JobSearchError(.tooLong, "search by at most \(Self.maximumLength) characters")
        }
        if let rest = Self.strip(text, "id:") {
            self = .idPrefix(try Self.hex(rest))
        } else if let rest = Self.strip(text, "error:") ?? Self.strip(text, "code:") {
            let code = rest.trimmingCharacters(in: .whitespaces).lowercased()
            if code.range(of: #"^[a-z][a-z0-9_]{0,63}$"#, options: .regularExpression) != nil {
                self = .errorCode(code)
            } else if Self.strip(text, "code:") != nil {
                throw JobSearchError(.badErrorCode, "error codes are lowercase letters, digits and _, such as http_not_found")
            } else {
                self = try Self.errorTextSearch(rest.trimmingCharacters(in: .whitespaces))
            }
        } else if let rest = Self.strip(text, "path:") {
            self = try Self.pathSearch(rest)
        } else if text.range(of: #"^[0-9A-Fa-f]{8}-[0-9A-Fa-f-]{0,27}$"#, options: .regularExpression) != nil {
            // An id's first group and its dash: a file name would rarely look like this.
            self = .idPrefix(try Self.hex(text))
        } else if let equals = text.firstIndex(of: "="),
                  text[..<equals].range(of: #"^[A-Za-z0-9_.-]{1,64}$"#, options: .regularExpression) != nil {
            self = .metadata(key: String(text[..<equals]), value: String(text[text.index(after: equals)...]))
        } else {
            guard text.count >= Self.minimumPathLength else {
                throw JobSearchError(.tooShort, "search text by at least \(Self.minimumPathLength) characters")
            }
            self = .text(text)
        }
    }

    /// What kind of search this is, for the page and the JSON (`id`, `path`, `error`, `metadata`).
    public var kind: String {
        switch self {
        case .idPrefix: "id"
        case .path: "path"
        case .text: "text"
        case .errorCode: "error"
        case .errorText: "error_text"
        case .metadata: "metadata"
        }
    }

    private static func strip(_ text: String, _ prefix: String) -> String? {
        text.lowercased().hasPrefix(prefix) ? String(text.dropFirst(prefix.count)) : nil
    }

    private static func hex(_ text: String) throws(JobSearchError) -> String {
        let digits = text.lowercased().filter { $0 != "-" }
        guard (1...32).contains(digits.count), digits.allSatisfy(\.isHexDigit) else {
            throw JobSearchError(.badJobID, "a job id is up to 32 hexadecimal digits (dashes allowed)")
        }
        return digits
    }

    private static func pathSearch(_ text: String) throws(JobSearchError) -> JobSearch {
        guard text.count >= minimumPathLength else {
            throw JobSearchError(.tooShort, "search paths by at least \(minimumPathLength) characters")
        }
        return .path(text)
    }

    private static func errorTextSearch(_ text: String) throws(JobSearchError) -> JobSearch {
        guard text.count >= minimumPathLength else {
            throw JobSearchError(.tooShort, "search error text by at least \(minimumPathLength) characters")
        }
        return .errorText(text)
    }
}
