/// Search text that cannot be searched as given (``JobSearch/init(parsing:)``), with a stable code.
public struct JobSearchError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// Nothing to search for.
        case empty
        /// `id:` followed by something other than hexadecimal digits and dashes.
        case badJobID = "bad_job_id"
        /// `code:` followed by something that is not an error code.
        case badErrorCode = "bad_error_code"
        /// Path text shorter than ``JobSearch/minimumPathLength``.
        case tooShort = "too_short"
        /// Text longer than ``JobSearch/maximumLength``.
        case tooLong = "too_long"
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
