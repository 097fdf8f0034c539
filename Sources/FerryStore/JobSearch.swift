import FerryCore
import Foundation

/// What a search across batches looks for, read from one search box:
///
/// - a job id or its start (`01939e5a-7c`, or `id:01939e`): the primary key's range;
/// - `error:CODE` (or `code:CODE`): jobs whose last error starts with that code (`http_not_found: …`);
/// - `KEY=VALUE`: jobs whose metadata has that key with that value (a string, or the number or boolean it spells);
/// - anything else (or `path:TEXT`): text anywhere in the source or destination, case-insensitive, at least 3
///   characters (what a trigram index can find).
public enum JobSearch: Sendable, Hashable {
    /// Lowercase hex digits, dashes removed, 1 to 32 of them.
    case idPrefix(String)
    case path(String)
    case errorCode(String)
    case metadata(key: String, value: String)

    /// The shortest path text searched: shorter text has no trigram to look up.
    public static let minimumPathLength = 3

    /// Reads the search box; throws ``JobSearchError`` for text that cannot be searched as given.
    public init(parsing input: String) throws(JobSearchError) {
        let text = input.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw JobSearchError(.empty, "type a job id, a path, error:CODE or KEY=VALUE") }
        if let rest = Self.strip(text, "id:") {
            self = .idPrefix(try Self.hex(rest))
        } else if let rest = Self.strip(text, "error:") ?? Self.strip(text, "code:") {
            let code = rest.lowercased()
            guard code.range(of: #"^[a-z][a-z0-9_]{0,63}$"#, options: .regularExpression) != nil else {
                throw JobSearchError(.badErrorCode, "error codes are lowercase letters, digits and _, such as http_not_found")
            }
            self = .errorCode(code)
        } else if let rest = Self.strip(text, "path:") {
            self = try Self.pathSearch(rest)
        } else if text.range(of: #"^[0-9A-Fa-f]{8}-[0-9A-Fa-f-]{0,27}$"#, options: .regularExpression) != nil {
            // An id's first group and its dash: a file name would rarely look like this.
            self = .idPrefix(try Self.hex(text))
        } else if let equals = text.firstIndex(of: "="),
                  text[..<equals].range(of: #"^[A-Za-z0-9_.-]{1,64}$"#, options: .regularExpression) != nil {
            self = .metadata(key: String(text[..<equals]), value: String(text[text.index(after: equals)...]))
        } else {
            self = try Self.pathSearch(text)
        }
    }

    /// What kind of search this is, for the page and the JSON (`id`, `path`, `error`, `metadata`).
    public var kind: String {
        switch self {
        case .idPrefix: "id"
        case .path: "path"
        case .errorCode: "error"
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
}
